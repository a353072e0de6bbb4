//! The churn diagnosis: per-attr variation in the cache's statistics, and a warning that names the
//! attr at fault and the fix that fits it, built from what the cache saw.

mod common;

use common::op_stats;
use eager_wasm::eager::attr_variation::AttrVariation;
use eager_wasm::eager::{AttrStats, ChurnWarning};
use eager_wasm::memory::heap_bytes;
use eager_wasm::registry::lookup;
use eager_wasm::{AttrValue, CacheOptions, CacheStats, ContextOptions, EagerContext, Tensor};

fn context(cache: CacheOptions) -> EagerContext {
    EagerContext::new(ContextOptions {
        cache,
        ..Default::default()
    })
}

fn no_exclusions() -> CacheOptions {
    CacheOptions {
        exclude: Default::default(),
        ..Default::default()
    }
}

fn warning<'a>(stats: &'a CacheStats, op: &str) -> &'a ChurnWarning {
    stats
        .warnings
        .iter()
        .find(|w| w.op == op)
        .unwrap_or_else(|| panic!("no churn warning for {op}: {:?}", stats.warnings))
}

fn attr<'a>(stats: &'a CacheStats, op: &str, name: &str) -> &'a AttrStats {
    op_stats(stats, op)
        .attrs
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("{op} has no figures for attr {name}"))
}

/// The sentence of `message` that starts with `start` (up to a period before a capital).
fn sentence<'a>(message: &'a str, start: &str) -> &'a str {
    let i = message
        .find(start)
        .unwrap_or_else(|| panic!("no '{start}' in: {message}"));
    let rest = &message[i..];
    let b = rest.as_bytes();
    let end = (0..b.len().saturating_sub(2))
        .find(|&j| b[j] == b'.' && b[j + 1] == b' ' && b[j + 2].is_ascii_uppercase())
        .map_or(rest.len(), |j| j + 1);
    &rest[..end]
}

fn var_handle(ctx: &mut EagerContext, shared_name: &str, shape: Vec<i64>) {
    let [h] = <[Tensor; 1]>::try_from(
        ctx.execute(
            "VarHandleOp",
            &[],
            [
                ("dtype", AttrValue::Type(eager_wasm::DType::Float32)),
                ("shape", AttrValue::Shape(Some(shape))),
                (
                    "shared_name",
                    AttrValue::Str(shared_name.as_bytes().to_vec()),
                ),
            ],
        )
        .unwrap(),
    )
    .unwrap();
    ctx.execute("DestroyResourceOp", &[h], [] as [(&str, AttrValue); 0])
        .unwrap();
}

#[test]
fn unique_shared_names_are_named_as_the_cause_not_dtype_or_shape() {
    let mut ctx = EagerContext::default();
    for i in 0..300 {
        var_handle(&mut ctx, &format!("dense/kernel_{i}"), vec![4, 4]);
    }
    let stats = ctx.cache_stats();
    let w = warning(&stats, "VarHandleOp");
    assert_eq!(w.attrs, ["shared_name"], "{}", w.message);
    let varying = sentence(&w.message, "New on almost every call:");
    assert!(
        varying.contains("shared_name (~") || varying.contains("shared_name (3"),
        "{varying}"
    );
    assert!(
        varying.contains("\"dense/kernel_0\", \"dense/kernel_1\""),
        "{varying}"
    );
    assert!(
        !varying.contains("dtype") && !varying.contains("shape"),
        "{varying}"
    );
    let constant = sentence(&w.message, "Constant:");
    for a in ["container", "dtype", "shape", "allowed_devices"] {
        assert!(constant.contains(a), "{a} constant: {constant}");
    }
    assert!(w.message.contains("anonymous names"), "{}", w.message);
    assert!(!w.message.contains("exclude VarHandleOp"), "{}", w.message);
    let sn = attr(&stats, "VarHandleOp", "shared_name");
    assert!(sn.varies_per_call && !sn.distinct_exact);
    assert!((sn.distinct_values as f64 - 300.0).abs() < 60.0, "{sn:?}");
    let dtype = attr(&stats, "VarHandleOp", "dtype");
    assert_eq!(
        (
            dtype.distinct_values,
            dtype.distinct_exact,
            dtype.varies_per_call
        ),
        (1, true, false)
    );
    assert_eq!(dtype.examples, ["float32"]);
    // The anonymous name: one key, nothing varies, no warning.
    let mut anon = EagerContext::default();
    for _ in 0..300 {
        var_handle(&mut anon, eager_wasm::resource::ANONYMOUS_NAME, vec![4, 4]);
    }
    let stats = anon.cache_stats();
    assert!(stats.warnings.is_empty());
    let vh = op_stats(&stats, "VarHandleOp");
    assert!(vh
        .attrs
        .iter()
        .all(|a| a.distinct_values == 1 && !a.varies_per_call));
}

#[test]
fn a_const_with_a_new_value_each_call_names_value_and_recommends_exclusion() {
    let mut ctx = context(no_exclusions());
    for i in 0..200 {
        let v = Tensor::from_slice(&[2], &[i as f32, 0.5]).unwrap();
        ctx.execute(
            "Const",
            &[],
            [
                ("value", AttrValue::Tensor(v)),
                ("dtype", AttrValue::Type(eager_wasm::DType::Float32)),
            ],
        )
        .unwrap();
    }
    let stats = ctx.cache_stats();
    let w = warning(&stats, "Const");
    assert_eq!(w.attrs, ["value"], "{}", w.message);
    assert!(
        w.message.contains("value (~") || w.message.contains("value (2"),
        "{}",
        w.message
    );
    assert!(
        w.message
            .contains("float32 [2] [0, 0.5], float32 [2] [1, 0.5]"),
        "{}",
        w.message
    );
    assert!(sentence(&w.message, "Constant:").contains("dtype"));
    assert!(
        w.message
            .contains("value carries a value, so exclude Const from the cache"),
        "{}",
        w.message
    );
    assert!(!w.message.contains("anonymous"), "{}", w.message);
    // With the default exclusion in place there is no warning, but the variation is still seen.
    let mut excluded = EagerContext::default();
    for i in 0..200 {
        let v = Tensor::from_slice(&[1], &[i as f32]).unwrap();
        excluded
            .execute(
                "Const",
                &[],
                [
                    ("value", AttrValue::Tensor(v)),
                    ("dtype", AttrValue::Type(eager_wasm::DType::Float32)),
                ],
            )
            .unwrap();
    }
    let stats = excluded.cache_stats();
    assert!(stats.warnings.is_empty());
    assert!(attr(&stats, "Const", "value").varies_per_call);
}

#[test]
fn two_varying_attrs_are_both_named_each_with_its_fix() {
    let mut ctx = EagerContext::default();
    for i in 0..300 {
        var_handle(&mut ctx, &format!("v_{i}"), vec![i + 1]);
    }
    let stats = ctx.cache_stats();
    let w = warning(&stats, "VarHandleOp");
    assert_eq!(w.attrs, ["shared_name", "shape"], "{}", w.message);
    let varying = sentence(&w.message, "New on almost every call:");
    assert!(varying.contains("shared_name (") && varying.contains(" and shape ("));
    assert!(varying.contains("shape [1], shape [2]"), "{varying}");
    assert!(!sentence(&w.message, "Constant:").contains("shape"));
    assert!(
        w.message.contains("shared_name names a resource"),
        "{}",
        w.message
    );
    assert!(
        w.message
            .contains("shape carries a value, so exclude VarHandleOp"),
        "{}",
        w.message
    );
}

#[test]
fn an_ordinary_attr_is_said_plainly() {
    let mut ctx = EagerContext::default();
    let x = Tensor::from_slice(&[2], &[-1f32, 1.0]).unwrap();
    for i in 0..200 {
        ctx.execute(
            "LeakyRelu",
            std::slice::from_ref(&x),
            [("alpha", AttrValue::Float(0.001 * i as f32))],
        )
        .unwrap();
    }
    let stats = ctx.cache_stats();
    let w = warning(&stats, "LeakyRelu");
    assert_eq!(w.attrs, ["alpha"], "{}", w.message);
    assert!(
        w.message.contains("alpha is an ordinary attr"),
        "{}",
        w.message
    );
    assert!(w.message.contains("e.g. 0, 0.001"), "{}", w.message);
    assert!(!w.message.contains("anonymous"), "{}", w.message);
}

#[test]
fn a_combination_of_attrs_is_named_when_no_single_attr_churns() {
    // 15 x 15 values: neither attr alone is new on most calls, their pairs are.
    let mut ctx = EagerContext::default();
    for i in 0..15 {
        for j in 0..15 {
            var_handle(&mut ctx, &format!("v_{i}"), vec![j + 1]);
        }
    }
    let stats = ctx.cache_stats();
    let w = warning(&stats, "VarHandleOp");
    assert!(w.attrs.is_empty(), "{:?}", w.attrs);
    assert!(
        w.message
            .contains("No single attr takes a new value on almost every call; together shared_name (15 values"),
        "{}",
        w.message
    );
    assert!(w.message.contains("and shape (15 values"), "{}", w.message);
}

#[test]
fn distinct_estimates_never_exceed_lookups() {
    let mut ctx = EagerContext::default();
    let x = Tensor::from_slice(&[1], &[1f32]).unwrap();
    for i in 0..3_000 {
        ctx.execute(
            "LeakyRelu",
            std::slice::from_ref(&x),
            [("alpha", AttrValue::Float(i as f32))],
        )
        .unwrap();
        let stats = ctx.cache_stats();
        let s = op_stats(&stats, "LeakyRelu");
        let lookups = s.hits + s.misses + s.bypassed;
        assert!(
            s.distinct_keys <= lookups,
            "{} keys in {lookups} lookups",
            s.distinct_keys
        );
        for a in &s.attrs {
            assert!(
                a.distinct_values <= s.distinct_keys,
                "{a:?} over {}",
                s.distinct_keys
            );
        }
        for w in &stats.warnings {
            let seen = format!("in {} lookups", group(lookups));
            assert!(w.message.contains(&seen), "{}", w.message);
        }
    }
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn attr_tracking_stays_within_its_bound_over_100k_keys_and_is_counted_exactly() {
    // An entry bound keeps the kernels themselves few: what could grow is the tracking.
    let mut ctx = context(CacheOptions {
        max_entries: Some(8),
        ..Default::default()
    });
    let x = Tensor::from_slice(&[1], &[1f32]).unwrap();
    let bound = AttrVariation::max_heap_bytes(lookup("LeakyRelu").unwrap().attrs.len());
    let run = |ctx: &mut EagerContext, from: u32, to: u32| {
        for i in from..to {
            ctx.execute(
                "LeakyRelu",
                std::slice::from_ref(&x),
                [("alpha", AttrValue::Float(f32::from_bits(i)))],
            )
            .unwrap();
        }
    };
    run(&mut ctx, 0, 10_000);
    let warm = heap_bytes();
    let warm_attr_bytes = ctx.cache_stats().attr_bytes;
    run(&mut ctx, 10_000, 100_000);
    assert_eq!(
        heap_bytes(),
        warm,
        "heap flat over 90,000 more distinct keys"
    );
    let stats = ctx.cache_stats();
    let s = op_stats(&stats, "LeakyRelu");
    assert_eq!(s.misses, 100_000);
    assert!(
        (s.distinct_keys as f64 - 100_000.0).abs() < 10_000.0,
        "{}",
        s.distinct_keys
    );
    assert!(s.attr_bytes <= bound, "{} > bound {bound}", s.attr_bytes);
    assert_eq!(
        s.attr_bytes, warm_attr_bytes,
        "no growth after the sketches"
    );
    assert_eq!(stats.attr_bytes, s.attr_bytes);
}
