//! The churn warning: an op whose keys keep coming while it almost never hits. Built from what the
//! cache saw: the attrs that take a new value on almost every call, those that stay constant, and
//! the fix that fits what varies.

use super::attr_variation::AttrStats;
use super::op_stats::OpCacheStats;
use crate::ops::AttrType;

/// Churn: at least this many distinct keys...
const CHURN_MIN_KEYS: u64 = 100;
/// ...and fewer than 1 hit per this many lookups.
const CHURN_HIT_RATIO: u64 = 20;

#[derive(Debug, Clone, PartialEq)]
pub struct ChurnWarning {
    pub op: String,
    pub message: String,
    /// The attrs that take a new value on almost every call (empty when only their combination
    /// makes keys new).
    pub attrs: Vec<&'static str>,
}

/// The signature of the VarHandleOp leak: keys keep coming, none repeats.
///
/// Written piece by piece through `put`, not with `format!`: each formatting call (and each inlined
/// `push_str`) costs code in the wasm, and this message is built rarely.
#[inline(never)]
pub fn churn_warning(op: &str, s: &OpCacheStats) -> Option<ChurnWarning> {
    let lookups = s.hits + s.misses;
    if s.distinct_keys < CHURN_MIN_KEYS || s.hits * CHURN_HIT_RATIO >= lookups {
        return None;
    }
    let mut m = String::new();
    put(&mut m, op);
    put(&mut m, ": ");
    count(&mut m, s.distinct_keys, s.distinct_exact);
    put(&mut m, " distinct keys, ");
    count(&mut m, s.hits, true);
    put(&mut m, " hits in ");
    count(&mut m, lookups, true);
    put(&mut m, " lookups.");
    let per_call: Vec<&AttrStats> = s.attrs.iter().filter(|a| a.varies_per_call).collect();
    let constant: Vec<&AttrStats> = s.attrs.iter().filter(|a| a.distinct_values == 1).collect();
    let others: Vec<&AttrStats> = s
        .attrs
        .iter()
        .filter(|a| a.distinct_values > 1 && !a.varies_per_call)
        .collect();
    // The attrs the fix is about: those that vary on every call, else those that vary at all.
    let culprits = if per_call.is_empty() {
        if !others.is_empty() {
            put(
                &mut m,
                " No single attr takes a new value on almost every call; together ",
            );
            list(&mut m, &others, true);
            put(&mut m, " make almost every key new.");
        }
        &others
    } else {
        put(&mut m, " New on almost every call: ");
        list(&mut m, &per_call, true);
        put(&mut m, ".");
        if !others.is_empty() {
            put(&mut m, " Also varying: ");
            list(&mut m, &others, true);
            put(&mut m, ".");
        }
        &per_call
    };
    if !constant.is_empty() {
        put(&mut m, " Constant: ");
        list(&mut m, &constant, false);
        put(&mut m, ".");
    }
    if !culprits.is_empty() {
        put(&mut m, " Each call caches a kernel that is never reused: ");
        fixes(&mut m, op, culprits);
        put(&mut m, ".");
    }
    Some(ChurnWarning {
        op: op.to_string(),
        message: m,
        attrs: per_call.iter().map(|a| a.name).collect(),
    })
}

/// What an attr's values are, for choosing the fix.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Names a resource (TF's fix: anonymous names).
    ResourceName,
    /// Carries a value (TF's answer: exclude the op, its key is unique by nature).
    Value,
    Other,
}

fn kind(a: &AttrStats) -> Kind {
    match (a.name, a.ty) {
        ("shared_name" | "container", _) => Kind::ResourceName,
        (_, AttrType::Tensor | AttrType::Shape | AttrType::ListShape) => Kind::Value,
        _ => Kind::Other,
    }
}

/// Per kind: (verb for one attr, verb for several, the fix before the op's name, after it).
const FIXES: [(Kind, &str, &str, &str, &str); 3] = [
    (
        Kind::ResourceName,
        " names",
        " name",
        " a resource, so give resources anonymous names (TF's fix; resourceNames: 'anonymous' for \
         model loads) and one kernel serves them all",
        "",
    ),
    (
        Kind::Value,
        " carries",
        " carry",
        " a value, so exclude ",
        " from the cache (cache.exclude), as TF does for ops whose key is unique by nature",
    ),
    (
        Kind::Other,
        " is an ordinary attr",
        " are ordinary attrs",
        " that the caller sets differently on almost every call, and no cache setting can \
         canonicalize that: pass values that repeat, or exclude ",
        " from the cache (cache.exclude) to stop the growth",
    ),
];

/// One clause per kind of culprit, in `FIXES` order, joined by "; ".
fn fixes(m: &mut String, op: &str, culprits: &[&AttrStats]) {
    let mut first = true;
    for (k, one, many, before, after) in FIXES {
        let these: Vec<&AttrStats> = culprits.iter().copied().filter(|a| kind(a) == k).collect();
        if these.is_empty() {
            continue;
        }
        if !first {
            put(m, "; ");
        }
        first = false;
        list(m, &these, false);
        put(m, if these.len() == 1 { one } else { many });
        put(m, before);
        if !after.is_empty() {
            put(m, op);
            put(m, after);
        }
    }
}

/// `a`, `a and b`, `a, b and c`; with `values`, each as `shared_name (~1,000 values, e.g. "a_1",
/// "b_2")`.
fn list(m: &mut String, attrs: &[&AttrStats], values: bool) {
    for (i, a) in attrs.iter().enumerate() {
        if i > 0 {
            put(m, if i + 1 == attrs.len() { " and " } else { ", " });
        }
        put(m, a.name);
        if values {
            put(m, " (");
            count(m, a.distinct_values, a.distinct_exact);
            put(m, " values");
            for (j, e) in a.examples.iter().enumerate() {
                put(m, if j == 0 { ", e.g. " } else { ", " });
                put(m, e);
            }
            put(m, ")");
        }
    }
}

/// `n` with thousands separators, `~` before it when estimated.
fn count(m: &mut String, n: u64, exact: bool) {
    if !exact {
        m.push('~');
    }
    let s = n.to_string();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            m.push(',');
        }
        m.push(c);
    }
}

/// `push_str`, out of line: one call per piece instead of an inlined capacity check each.
#[inline(never)]
fn put(m: &mut String, s: &str) {
    m.push_str(s);
}
