//! Lookup tables (HashTable/HashTableV2): keys (string or integer) to values of one dtype, in the
//! resource id space, owned by a scope like variables, their bytes counted in `bytes()`.

use super::{ResourceManager, ScopeId};
use crate::hash::FastBuild;
use crate::status::{failed_precondition, invalid_argument, not_found, Result};
use crate::tensor::{DType, Data, ResourceHandle, Tensor};
use std::collections::HashMap;

pub struct Table {
    pub key_dtype: DType,
    pub value_dtype: DType,
    /// Key bytes (a string's, or an integer's as little-endian i64) to its index in `values`.
    index: HashMap<Vec<u8>, usize, FastBuild>,
    /// The inserted keys and values (1-D), once initialized.
    entries: Option<(Tensor, Tensor)>,
    owner: ScopeId,
    name: Option<(String, String)>,
}

/// Each element of a string or integer tensor as map-key bytes.
fn key_bytes(t: &Tensor) -> Result<Vec<Vec<u8>>> {
    if let Data::Str(v) = t.data() {
        return Ok(v.clone());
    }
    Ok(t.to_i64_vec()?
        .iter()
        .map(|k| k.to_le_bytes().to_vec())
        .collect())
}

impl Table {
    pub fn size(&self) -> usize {
        self.index.len()
    }

    fn bytes(&self) -> usize {
        self.entries
            .as_ref()
            .map_or(0, |(k, v)| k.byte_len() + v.byte_len())
    }

    /// The index in the values of each key (None: absent).
    pub fn find(&self, keys: &Tensor) -> Result<(Vec<Option<usize>>, Option<&Tensor>)> {
        if keys.dtype() != self.key_dtype {
            return Err(invalid_argument(format!(
                "Expected table key dtype {}, got {}",
                self.key_dtype,
                keys.dtype()
            )));
        }
        let found = key_bytes(keys)?
            .iter()
            .map(|k| self.index.get(k).copied())
            .collect();
        Ok((found, self.entries.as_ref().map(|(_, v)| v)))
    }
}

impl ResourceManager {
    /// HashTableV2: the named table (made on first use), or a new one for an empty shared_name.
    pub fn table_handle(
        &mut self,
        container: &str,
        shared_name: &str,
        key_dtype: DType,
        value_dtype: DType,
        owner: ScopeId,
    ) -> Result<ResourceHandle> {
        let name =
            (!shared_name.is_empty()).then(|| (container.to_string(), shared_name.to_string()));
        if let Some(key) = &name {
            if let Some((&id, t)) = self
                .tables
                .iter()
                .find(|(_, t)| t.name.as_ref() == Some(key))
            {
                if t.key_dtype != key_dtype || t.value_dtype != value_dtype {
                    return Err(invalid_argument(format!(
                        "table '{shared_name}' exists with types {} -> {}, requested {key_dtype} -> \
                         {value_dtype}",
                        t.key_dtype, t.value_dtype
                    )));
                }
                return Ok(self.handle(id));
            }
        }
        let id = self.next_id()?;
        self.tables.insert(
            id,
            Table {
                key_dtype,
                value_dtype,
                index: HashMap::default(),
                entries: None,
                owner,
                name,
            },
        );
        Ok(self.handle(id))
    }

    fn table_id(&self, h: ResourceHandle) -> Result<u32> {
        if h.manager != self.manager {
            return Err(invalid_argument(
                "table handle belongs to another EagerContext",
            ));
        }
        if !self.tables.contains_key(&h.id) {
            return Err(not_found(format!(
                "lookup table {} does not exist (its model was disposed?)",
                h.id
            )));
        }
        Ok(h.id)
    }

    pub fn table(&self, h: ResourceHandle) -> Result<&Table> {
        let id = self.table_id(h)?;
        Ok(&self.tables[&id])
    }

    /// InitializeTableV2 (`import`: LookupTableImportV2, which replaces the contents): TF's
    /// HashTable rules: keys and values of one length and the table's dtypes, a key given twice
    /// must have one value, a second initialization must bring the same data.
    pub fn init_table(
        &mut self,
        h: ResourceHandle,
        keys: &Tensor,
        values: &Tensor,
        import: bool,
    ) -> Result<()> {
        let id = self.table_id(h)?;
        let t = &self.tables[&id];
        if keys.dtype() != t.key_dtype || values.dtype() != t.value_dtype {
            return Err(invalid_argument(format!(
                "Expected keys {} and values {}, got {} and {}",
                t.key_dtype,
                t.value_dtype,
                keys.dtype(),
                values.dtype()
            )));
        }
        if keys.shape() != values.shape() {
            return Err(invalid_argument(format!(
                "Expected shape {} for value, got {}",
                keys.shape(),
                values.shape()
            )));
        }
        // The same buffers again (a model's initializer on each run): nothing to do.
        if let Some((k, v)) = &t.entries {
            if k.shares_buffer(keys) && v.shares_buffer(values) {
                return Ok(());
            }
        }
        if let (Some((k, v)), false) = (&t.entries, import) {
            // Dtype, shape and every element.
            if k.bitwise_eq(&keys.reshaped(k.shape().clone())?)
                && v.bitwise_eq(&values.reshaped(v.shape().clone())?)
            {
                return Ok(());
            }
            return Err(failed_precondition(
                "Table was already initialized with different data.",
            ));
        }
        let flat_keys = keys.reshaped(crate::tensor::Shape::from_dims(&[keys.num_elements()])?)?;
        let flat_values = values.reshaped(flat_keys.shape().clone())?;
        let mut index: HashMap<Vec<u8>, usize, FastBuild> = HashMap::default();
        for (i, k) in key_bytes(keys)?.into_iter().enumerate() {
            match index.get(&k) {
                Some(&j) if !same_element(values, i, j) => {
                    return Err(failed_precondition(
                        "HashTable has different value for same key.",
                    ))
                }
                Some(_) => {}
                None => {
                    index.insert(k, i);
                }
            }
        }
        let old = t.bytes();
        let t = self.tables.get_mut(&id).expect("checked above");
        t.index = index;
        t.entries = Some((flat_keys, flat_values));
        self.bytes = self.bytes + t.bytes() - old;
        Ok(())
    }

    pub(super) fn destroy_tables(&mut self, scope: ScopeId) -> usize {
        let before = self.tables.len();
        let mut freed = 0;
        self.tables.retain(|_, t| {
            let keep = t.owner != scope;
            if !keep {
                freed += t.bytes();
            }
            keep
        });
        self.bytes -= freed;
        if self.tables.is_empty() {
            self.tables = HashMap::default();
        }
        before - self.tables.len()
    }
}

/// Whether elements `i` and `j` of `t` are equal.
fn same_element(t: &Tensor, i: usize, j: usize) -> bool {
    match t.data() {
        Data::F32(v) => v[i].to_bits() == v[j].to_bits(),
        Data::I32(v) => v[i] == v[j],
        Data::I64(v) => v[i] == v[j],
        Data::Bool(v) => v[i] == v[j],
        Data::U8(v) => v[i] == v[j],
        Data::Str(v) => v[i] == v[j],
        Data::C64(v) => {
            (v[i].re.to_bits(), v[i].im.to_bits()) == (v[j].re.to_bits(), v[j].im.to_bits())
        }
        Data::Resource(_) => true,
    }
}
