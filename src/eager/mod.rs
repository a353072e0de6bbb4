//! Eager execution: the context, the kernel cache key, the cache with its policies and statistics.

pub mod attr_variation;
pub mod cache_key;
mod churn;
mod context;
mod distinct;
pub mod kernel_cache;
mod op_stats;

pub use attr_variation::AttrStats;
pub use cache_key::CacheKey;
pub use churn::ChurnWarning;
pub use context::{ContextOptions, EagerContext, ResourceNaming, DEFAULT_MAX_LOOP_ITERATIONS};
pub use kernel_cache::{CacheOptions, CacheStats};
pub use op_stats::OpCacheStats;
