//! Resource manager: variables behind handles, named or anonymous, and tensor lists (`list`), each
//! owned by a scope (a model) and released with it.

mod list;
mod table;
pub use list::TensorList;
pub use table::Table;

use crate::hash::FastBuild;
use crate::status::{failed_precondition, invalid_argument, not_found, Result};
use crate::tensor::{DType, ResourceHandle, Tensor};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// TF's `ResourceHandle::ANONYMOUS_NAME`: a VarHandleOp with this shared_name mints a fresh
/// resource on every execution instead of looking one up by name.
pub const ANONYMOUS_NAME: &str = "cd2c89b7-88b7-44c8-ad83-06c2a9158347";

/// An owner of resources: a model, or the context itself (`ScopeId::ROOT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScopeId(pub u32);

impl ScopeId {
    pub const ROOT: ScopeId = ScopeId(0);
}

#[derive(Debug)]
pub struct Variable {
    pub dtype: DType,
    /// Declared shape; `None` for unknown rank, `-1` dims unknown.
    pub shape: Option<Vec<i64>>,
    pub value: Option<Tensor>,
    pub owner: ScopeId,
    name: Option<(String, String)>,
}

pub struct ResourceManager {
    manager: u32,
    next_id: u32,
    next_scope: u32,
    // Looked up on every variable op: the fixed fast hasher (ids are ours, names the page's).
    vars: HashMap<u32, Variable, FastBuild>,
    by_name: HashMap<(String, String), u32, FastBuild>,
    bytes: usize,
    /// Tensor lists (TensorList*/TensorArray* ops), in the same id space as `vars`.
    lists: HashMap<u32, TensorList, FastBuild>,
    /// Lookup tables (`table`), same id space.
    tables: HashMap<u32, Table, FastBuild>,
}

static NEXT_MANAGER: AtomicU32 = AtomicU32::new(1);

impl Default for ResourceManager {
    fn default() -> Self {
        Self::new()
    }
}

impl ResourceManager {
    pub fn new() -> Self {
        ResourceManager {
            manager: NEXT_MANAGER.fetch_add(1, Ordering::Relaxed),
            next_id: 1,
            next_scope: 1,
            vars: HashMap::default(),
            by_name: HashMap::default(),
            bytes: 0,
            lists: HashMap::default(),
            tables: HashMap::default(),
        }
    }

    pub fn new_scope(&mut self) -> ScopeId {
        let s = ScopeId(self.next_scope);
        self.next_scope += 1;
        s
    }

    /// VarHandleOp: the named variable (created on first use), or a fresh one for the anonymous name.
    pub fn var_handle(
        &mut self,
        container: &str,
        shared_name: &str,
        dtype: DType,
        shape: Option<Vec<i64>>,
        owner: ScopeId,
    ) -> Result<ResourceHandle> {
        if shared_name != ANONYMOUS_NAME {
            let key = (container.to_string(), shared_name.to_string());
            if let Some(&id) = self.by_name.get(&key) {
                let v = &self.vars[&id];
                if v.dtype != dtype {
                    return Err(invalid_argument(format!(
                        "variable '{shared_name}' exists with dtype {}, requested {dtype}",
                        v.dtype
                    )));
                }
                return Ok(self.handle(id));
            }
            let id = self.insert(dtype, shape, owner, Some(key.clone()))?;
            self.by_name.insert(key, id);
            return Ok(self.handle(id));
        }
        let id = self.insert(dtype, shape, owner, None)?;
        Ok(self.handle(id))
    }

    fn next_id(&mut self) -> Result<u32> {
        let id = self.next_id;
        self.next_id = self
            .next_id
            .checked_add(1)
            .ok_or_else(|| crate::status::resource_exhausted("resource ids exhausted"))?;
        Ok(id)
    }

    fn insert(
        &mut self,
        dtype: DType,
        shape: Option<Vec<i64>>,
        owner: ScopeId,
        name: Option<(String, String)>,
    ) -> Result<u32> {
        let id = self.next_id()?;
        self.vars.insert(
            id,
            Variable {
                dtype,
                shape,
                value: None,
                owner,
                name,
            },
        );
        Ok(id)
    }

    fn handle(&self, id: u32) -> ResourceHandle {
        ResourceHandle {
            manager: self.manager,
            id,
        }
    }

    fn check(&self, h: ResourceHandle) -> Result<u32> {
        if h.manager != self.manager {
            return Err(invalid_argument(
                "resource handle belongs to another EagerContext",
            ));
        }
        if !self.vars.contains_key(&h.id) {
            return Err(not_found(format!(
                "resource {} does not exist (destroyed, or its model was disposed)",
                h.id
            )));
        }
        Ok(h.id)
    }

    pub fn variable(&self, h: ResourceHandle) -> Result<&Variable> {
        let id = self.check(h)?;
        Ok(&self.vars[&id])
    }

    pub fn read(&self, h: ResourceHandle, dtype: DType) -> Result<Tensor> {
        let v = self.variable(h)?;
        if v.dtype != dtype {
            return Err(invalid_argument(format!(
                "variable holds {}, read as {dtype}",
                v.dtype
            )));
        }
        v.value.clone().ok_or_else(|| {
            failed_precondition(format!(
                "read of uninitialized variable{}",
                v.name
                    .as_ref()
                    .map(|(_, n)| format!(" '{n}'"))
                    .unwrap_or_default()
            ))
        })
    }

    /// AssignVariableOp: checks dtype and the declared shape, replaces the value.
    pub fn assign(&mut self, h: ResourceHandle, value: Tensor) -> Result<()> {
        let id = self.check(h)?;
        let v = self.vars.get_mut(&id).expect("checked above");
        if v.dtype != value.dtype() {
            return Err(invalid_argument(format!(
                "cannot assign a {} tensor to a {} variable",
                value.dtype(),
                v.dtype
            )));
        }
        if let Some(decl) = &v.shape {
            let ok = decl.len() == value.rank()
                && decl
                    .iter()
                    .zip(value.dims())
                    .all(|(&d, &a)| d < 0 || d as usize == a);
            if !ok {
                return Err(invalid_argument(format!(
                    "cannot assign a tensor of shape {} to a variable of shape {decl:?}",
                    value.shape()
                )));
            }
        }
        let new_bytes = value.byte_len();
        let old_bytes = v.value.as_ref().map_or(0, Tensor::byte_len);
        v.value = Some(value);
        self.bytes = self.bytes + new_bytes - old_bytes;
        Ok(())
    }

    pub fn destroy(&mut self, h: ResourceHandle) -> Result<()> {
        let id = self.check(h)?;
        self.remove(id);
        Ok(())
    }

    fn remove(&mut self, id: u32) {
        if let Some(v) = self.vars.remove(&id) {
            self.bytes -= v.value.as_ref().map_or(0, Tensor::byte_len);
            if let Some(name) = v.name {
                self.by_name.remove(&name);
            }
        }
    }

    /// Releases every resource `scope` owns; returns how many.
    pub fn destroy_scope(&mut self, scope: ScopeId) -> usize {
        let ids: Vec<u32> = self
            .vars
            .iter()
            .filter(|(_, v)| v.owner == scope)
            .map(|(&id, _)| id)
            .collect();
        for &id in &ids {
            self.remove(id);
        }
        let lists = self.destroy_lists(scope) + self.destroy_tables(scope);
        if self.vars.is_empty() {
            // Drop the maps' capacity too, so an emptied manager holds no heap grown by a load.
            self.vars = HashMap::default();
            self.by_name = HashMap::default();
        }
        ids.len() + lists
    }

    /// Variables, tensor lists and lookup tables.
    pub fn count(&self) -> usize {
        self.vars.len() + self.lists.len() + self.tables.len()
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for ResourceManager {
    fn drop(&mut self) {
        // Lists first (their tensors may name others), then the handles left for this manager.
        for (id, _) in std::mem::take(&mut self.lists) {
            crate::tensor::untrack_resource(self.handle(id));
        }
        crate::tensor::take_unreferenced(self.manager);
    }
}
