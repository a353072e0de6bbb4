//! `EagerContext`: runs ops one at a time by name with TF attrs, through the kernel cache, on
//! tensors and resources it owns.

use super::cache_key::{CacheKey, KeyProbe, CPU_DEVICE};
use super::kernel_cache::{CacheOptions, CacheStats, KernelCache};
use crate::memory::{self, MemoryReport};
use crate::ops::KernelContext;
use crate::ops::{self, AttrValue, OpDef};
use crate::resource::{ResourceManager, ScopeId};
use crate::status::{invalid_argument, Result};
use crate::tensor::{live_packed, live_tensors, Tensor};

/// How a model load names the variables it creates (TF before and after its fix for #40171).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResourceNaming {
    /// A fresh `shared_name` per variable per load: every VarHandleOp has a new cache key.
    Unique,
    /// TF's anonymous sentinel: one cached VarHandleOp kernel serves every variable.
    #[default]
    Anonymous,
}

impl ResourceNaming {
    pub fn parse(s: &str) -> Result<ResourceNaming> {
        match s {
            "unique" => Ok(ResourceNaming::Unique),
            "anonymous" => Ok(ResourceNaming::Anonymous),
            other => Err(invalid_argument(format!(
                "resourceNames must be 'unique' or 'anonymous', got '{other}'"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ContextOptions {
    pub cache: CacheOptions,
    pub resource_naming: ResourceNaming,
    /// Loop iterations one model run may take (all its loops together), so a model that loops
    /// forever ends with `ResourceExhausted` instead of hanging.
    pub max_loop_iterations: u64,
    /// Let graph models' convolutions and matrix products pack their weights into the kernels'
    /// layout once, on first use, instead of on every call (faster runs; a packed weight then
    /// takes about twice its memory).
    pub pack_weights: bool,
}

/// Default of `ContextOptions::max_loop_iterations`.
pub const DEFAULT_MAX_LOOP_ITERATIONS: u64 = 1_000_000;

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            cache: CacheOptions::default(),
            resource_naming: ResourceNaming::default(),
            max_loop_iterations: DEFAULT_MAX_LOOP_ITERATIONS,
            pack_weights: true,
        }
    }
}

pub struct EagerContext {
    cache: KernelCache,
    resources: ResourceManager,
    naming: ResourceNaming,
    scope: ScopeId,
    /// Counter for unique variable names (`Unique` naming).
    next_unique: u64,
    max_loop_iterations: u64,
    pack_weights: bool,
}

impl Default for EagerContext {
    fn default() -> Self {
        Self::new(ContextOptions::default())
    }
}

impl EagerContext {
    pub fn new(options: ContextOptions) -> EagerContext {
        EagerContext {
            cache: KernelCache::new(options.cache),
            resources: ResourceManager::new(),
            naming: options.resource_naming,
            scope: ScopeId::ROOT,
            next_unique: 0,
            max_loop_iterations: options.max_loop_iterations,
            pack_weights: options.pack_weights,
        }
    }

    /// Runs `op` on `inputs` with `attrs` (any order; type attrs inferred from inputs).
    pub fn execute<S: AsRef<str>>(
        &mut self,
        op: &str,
        inputs: &[Tensor],
        attrs: impl IntoIterator<Item = (S, AttrValue)>,
    ) -> Result<Vec<Tensor>> {
        self.execute_op(crate::registry::lookup(op)?, inputs, attrs)
    }

    /// `execute` for an op already looked up (the graph executor resolves ops once, at load).
    pub fn execute_op<S: AsRef<str>>(
        &mut self,
        def: &'static OpDef,
        inputs: &[Tensor],
        attrs: impl IntoIterator<Item = (S, AttrValue)>,
    ) -> Result<Vec<Tensor>> {
        // Resolved attrs live on the stack (heap only for ops with many attrs): a cache hit
        // allocates nothing for its key.
        let n = def.attrs.len();
        let mut inline: [Option<AttrValue>; ops::INLINE_ATTRS] = Default::default();
        let mut heap: Vec<Option<AttrValue>>;
        let slots: &mut [Option<AttrValue>] = if n <= ops::INLINE_ATTRS {
            &mut inline[..n]
        } else {
            heap = vec![None; n];
            &mut heap
        };
        ops::resolve_into(def, inputs, attrs, slots)?;
        let kernel = self
            .cache
            .get_or_instantiate_probe(KeyProbe::new(CPU_DEVICE, def, slots))?;
        let mut kctx = KernelContext {
            resources: &mut self.resources,
            scope: self.scope,
        };
        kernel
            .compute(&mut kctx, inputs)
            .map_err(|e| e.context(def.name))
    }

    /// Runs the op of `key` on `inputs`; `key` must have been resolved (`ops::resolve_attrs`, then
    /// `CacheKey::new`) for inputs of these very dtypes and count, as the graph executor does once
    /// per node: resolution depends on nothing else, so repeating it would give the same key.
    pub(crate) fn execute_key(&mut self, key: &CacheKey, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let kernel = self.cache.get_or_instantiate_ref(key)?;
        let mut kctx = KernelContext {
            resources: &mut self.resources,
            scope: self.scope,
        };
        kernel
            .compute(&mut kctx, inputs)
            .map_err(|e| e.context(key.op()))
    }

    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Kernel-cache lookups so far as (hits, misses, bypassed): cheap enough to read per op.
    pub fn cache_lookups(&self) -> (u64, u64, u64) {
        self.cache.lookups()
    }

    pub fn cache_options(&self) -> &CacheOptions {
        self.cache.options()
    }

    pub fn set_cache_options(&mut self, options: CacheOptions) {
        self.cache.set_options(options);
    }

    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Clears the cache and its statistics.
    pub fn reset_cache(&mut self) {
        self.cache.reset();
    }

    pub fn max_loop_iterations(&self) -> u64 {
        self.max_loop_iterations
    }

    pub fn set_max_loop_iterations(&mut self, n: u64) {
        self.max_loop_iterations = n;
    }

    /// Whether graph-model loads pack weights (`ContextOptions::pack_weights`).
    pub fn packs_weights(&self) -> bool {
        self.pack_weights
    }

    pub fn resource_naming(&self) -> ResourceNaming {
        self.naming
    }

    pub fn set_resource_naming(&mut self, naming: ResourceNaming) {
        self.naming = naming;
    }

    /// A `shared_name` for a new variable under the current naming policy.
    pub fn variable_shared_name(&mut self, base: &str) -> String {
        match self.naming {
            ResourceNaming::Anonymous => crate::resource::ANONYMOUS_NAME.to_string(),
            ResourceNaming::Unique => {
                self.next_unique += 1;
                format!("{base}_{}", self.next_unique)
            }
        }
    }

    pub fn resources(&self) -> &ResourceManager {
        &self.resources
    }

    /// A new owner scope for resources (one per model).
    pub fn new_scope(&mut self) -> ScopeId {
        self.resources.new_scope()
    }

    /// Makes `scope` own resources created from now on; returns the previous scope.
    pub fn enter_scope(&mut self, scope: ScopeId) -> ScopeId {
        std::mem::replace(&mut self.scope, scope)
    }

    pub fn current_scope(&self) -> ScopeId {
        self.scope
    }

    /// Releases the tensor lists made by `execute` whose last handle tensor is gone; returns how many.
    pub fn release_unreferenced(&mut self) -> usize {
        self.resources.release_unreferenced()
    }

    /// Releases the tensor lists `scope` owns (they live for one model run); returns how many.
    pub fn destroy_lists(&mut self, scope: ScopeId) -> usize {
        self.resources.destroy_lists(scope)
    }

    /// Releases every resource `scope` owns; returns how many.
    pub fn destroy_scope(&mut self, scope: ScopeId) -> usize {
        self.resources.destroy_scope(scope)
    }

    pub fn memory(&self) -> MemoryReport {
        let (num_tensors, tensor_bytes) = live_tensors();
        let (num_packed, packed_bytes) = live_packed();
        MemoryReport {
            heap_bytes: memory::heap_bytes(),
            heap_peak_bytes: memory::heap_peak_bytes(),
            wasm_memory_bytes: memory::wasm_memory_bytes(),
            num_tensors,
            tensor_bytes,
            num_resources: self.resources.count(),
            resource_bytes: self.resources.bytes(),
            cache_entries: self.cache.len(),
            cache_bytes: self.cache.bytes(),
            num_packed,
            packed_bytes,
        }
    }
}
