//! Dispatch overhead of the eager path: cache-key build + hit lookup, a miss (kernel instantiation),
//! and a whole tiny `AddV2` execute with the cache on vs the op excluded (instantiated every call).
//! `cargo bench --bench dispatch`

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{black_box, criterion_group, Criterion};
    use eager_wasm::eager::kernel_cache::KernelCache;
    use eager_wasm::eager::{CacheKey, CacheOptions};
    use eager_wasm::ops::resolve_attrs;
    use eager_wasm::registry::lookup;
    use eager_wasm::{AttrValue, ContextOptions, EagerContext, Tensor};

    fn matmul_key(a: &Tensor) -> CacheKey {
        let def = lookup("MatMul").unwrap();
        let attrs = resolve_attrs(
            def,
            &[a.clone(), a.clone()],
            [
                ("transpose_a", AttrValue::Bool(false)),
                ("transpose_b", AttrValue::Bool(true)),
            ],
        )
        .unwrap();
        CacheKey::new(eager_wasm::eager::cache_key::CPU_DEVICE, attrs)
    }

    fn bench(c: &mut Criterion) {
        let a = Tensor::from_slice(&[1, 1], &[1f32]).unwrap();
        let mut cache = KernelCache::new(CacheOptions::default());
        cache.get_or_instantiate(matmul_key(&a)).unwrap();
        c.bench_function("cache hit: resolve attrs + key + lookup (MatMul)", |b| {
            b.iter(|| black_box(cache.get_or_instantiate(matmul_key(&a)).unwrap()))
        });
        c.bench_function("cache miss: key + instantiate + insert (MatMul)", |b| {
            b.iter(|| {
                cache.clear();
                black_box(cache.get_or_instantiate(matmul_key(&a)).unwrap())
            })
        });

        let x = Tensor::from_slice(&[1], &[1f32]).unwrap();
        let none: [(&str, AttrValue); 0] = [];
        let mut ctx = EagerContext::default();
        c.bench_function("execute AddV2 [1]+[1], cache hit", |b| {
            b.iter(|| {
                black_box(
                    ctx.execute("AddV2", &[x.clone(), x.clone()], none.clone())
                        .unwrap(),
                )
            })
        });
        let mut exclude = CacheOptions::default();
        exclude.exclude.insert("AddV2".into());
        let mut uncached = EagerContext::new(ContextOptions {
            cache: exclude,
            ..Default::default()
        });
        c.bench_function("execute AddV2 [1]+[1], cache bypassed", |b| {
            b.iter(|| {
                black_box(
                    uncached
                        .execute("AddV2", &[x.clone(), x.clone()], none.clone())
                        .unwrap(),
                )
            })
        });
    }

    criterion_group!(benches, bench);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

// Criterion does not run on wasm32; the wasm figures come from `npm run bench`.
#[cfg(target_arch = "wasm32")]
fn main() {}
