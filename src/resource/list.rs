//! Tensor lists, the second resource kind: what TF's `TensorList*` variants and `TensorArrayV3`
//! resources hold. A list lives in the resource manager behind a handle, owned by a scope; the
//! graph executor destroys a model's lists when the run that made them ends.

use super::{ResourceHandle, ResourceManager, ScopeId};
use crate::status::{invalid_argument, not_found, resource_exhausted, Result};
use crate::tensor::{DType, Tensor};

/// Most elements one list may hold: far above real models (a loop's trip count), low enough that
/// a hostile size fails cleanly instead of exhausting memory on empty slots.
pub const MAX_LIST_LEN: usize = 1 << 24;

#[derive(Debug)]
pub struct TensorList {
    pub dtype: DType,
    /// Element shape as known: `None` for unknown rank, `-1` for an unknown dim.
    pub element_shape: Option<Vec<i64>>,
    /// `None`: not set yet (reads as zeros when the element shape is known).
    pub items: Vec<Option<Tensor>>,
    /// Most elements it may grow to (`EmptyTensorList`'s `max_num_elements`), if bounded.
    pub max_len: Option<usize>,
    /// A TensorArray's `dynamic_size`: writes past the end grow it (TensorLists always may push).
    pub dynamic: bool,
    /// A TensorArray's `clear_after_read`: a read empties the slot (see `clear`).
    pub clear_after_read: bool,
    /// Slots emptied by a read (index < len: cleared); reading or writing them again fails, as in TF.
    cleared: Vec<bool>,
    owner: ScopeId,
}

impl TensorList {
    pub fn new(dtype: DType, element_shape: Option<Vec<i64>>, len: usize) -> Result<TensorList> {
        let mut l = TensorList {
            dtype,
            element_shape,
            items: Vec::new(),
            max_len: None,
            dynamic: true,
            clear_after_read: false,
            cleared: Vec::new(),
            owner: ScopeId::ROOT,
        };
        l.resize(len)?;
        Ok(l)
    }

    /// Grows (with unset slots) or shrinks to `len`, within `MAX_LIST_LEN` and `max_len`.
    pub fn resize(&mut self, len: usize) -> Result<()> {
        let bound = self.max_len.unwrap_or(MAX_LIST_LEN).min(MAX_LIST_LEN);
        if len > bound {
            return Err(resource_exhausted(format!(
                "tensor list of {len} elements exceeds its bound of {bound}"
            )));
        }
        if len > self.items.len() {
            self.items
                .try_reserve_exact(len - self.items.len())
                .map_err(|_| resource_exhausted(format!("cannot allocate a list of {len}")))?;
        }
        self.items.resize(len, None);
        self.cleared.truncate(len);
        Ok(())
    }

    /// Whether slot `k` was emptied by a read of a `clear_after_read` TensorArray.
    pub fn is_cleared(&self, k: usize) -> bool {
        self.cleared.get(k).copied().unwrap_or(false)
    }

    /// Empties slot `k` after a read (`clear_after_read`), remembering it was read.
    pub fn clear(&mut self, k: usize) -> Result<()> {
        if k >= self.cleared.len() {
            self.cleared
                .try_reserve(k + 1 - self.cleared.len())
                .map_err(|_| resource_exhausted("out of memory marking a TensorArray read"))?;
            self.cleared.resize(k + 1, false);
        }
        self.cleared[k] = true;
        if let Some(slot) = self.items.get_mut(k) {
            *slot = None;
        }
        Ok(())
    }

    /// Bytes of the elements it holds (tensors are counted in the live-tensor figures too).
    pub fn bytes(&self) -> usize {
        self.items.iter().flatten().map(Tensor::byte_len).sum()
    }
}

impl ResourceManager {
    /// A new list owned by `owner`.
    pub fn new_list(&mut self, mut list: TensorList, owner: ScopeId) -> Result<ResourceHandle> {
        self.release_unreferenced();
        let id = self.next_id()?;
        list.owner = owner;
        self.lists.insert(id, list);
        let h = self.handle(id);
        // Lists made by eager ops go with their last handle; a model run releases its own.
        crate::tensor::track_resource(h, owner == ScopeId::ROOT);
        Ok(h)
    }

    fn list_id(&self, h: ResourceHandle) -> Result<u32> {
        if h.manager != self.manager {
            return Err(invalid_argument(
                "tensor list handle belongs to another EagerContext",
            ));
        }
        if !self.lists.contains_key(&h.id) {
            return Err(not_found(format!(
                "tensor list {} does not exist (closed, or its run ended)",
                h.id
            )));
        }
        Ok(h.id)
    }

    pub fn list(&self, h: ResourceHandle) -> Result<&TensorList> {
        let id = self.list_id(h)?;
        Ok(&self.lists[&id])
    }

    pub fn list_mut(&mut self, h: ResourceHandle) -> Result<&mut TensorList> {
        let id = self.list_id(h)?;
        Ok(self.lists.get_mut(&id).expect("checked above"))
    }

    /// Releases a list (TensorArrayCloseV3).
    pub fn destroy_list(&mut self, h: ResourceHandle) -> Result<()> {
        let id = self.list_id(h)?;
        self.lists.remove(&id);
        crate::tensor::untrack_resource(h);
        if self.lists.is_empty() {
            self.lists = Default::default();
        }
        Ok(())
    }

    /// Releases the root scope's lists that no tensor names any more (their last handle was
    /// disposed), as TF releases a resource with its handle's last reference; returns how many.
    /// Lists of a model run are left to the run, which releases them when it ends.
    pub fn release_unreferenced(&mut self) -> usize {
        let mut released = 0;
        loop {
            let gone = crate::tensor::take_unreferenced(self.manager);
            if gone.is_empty() {
                break;
            }
            for h in gone {
                let root = self
                    .lists
                    .get(&h.id)
                    .is_some_and(|l| l.owner == ScopeId::ROOT);
                if root && crate::tensor::resource_refs(h) == 0 {
                    // Dropping its elements may leave more lists unreferenced: the loop takes them.
                    self.lists.remove(&h.id);
                    crate::tensor::untrack_resource(h);
                    released += 1;
                }
            }
        }
        if released > 0 && self.lists.is_empty() {
            self.lists = Default::default();
        }
        released
    }

    /// Releases every list `scope` owns (its capacity too once none is left); returns how many.
    pub fn destroy_lists(&mut self, scope: ScopeId) -> usize {
        let before = self.lists.len();
        let manager = self.manager;
        self.lists.retain(|&id, l| {
            let keep = l.owner != scope;
            if !keep {
                crate::tensor::untrack_resource(ResourceHandle { manager, id });
            }
            keep
        });
        if self.lists.is_empty() {
            self.lists = Default::default();
        }
        before - self.lists.len()
    }
}
