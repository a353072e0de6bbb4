//! The churn warning: an op whose keys keep coming while it almost never hits. Built from what the
//! cache saw: the attrs that take a new value on almost every call, those that stay constant, and
//! the fix that fits what varies.

use super::attr_variation::AttrStats;
use super::kernel_cache::OpCacheStats;
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
pub fn churn_warning(op: &str, s: &OpCacheStats) -> Option<ChurnWarning> {
    let lookups = s.hits + s.misses;
    if s.distinct_keys < CHURN_MIN_KEYS || s.hits * CHURN_HIT_RATIO >= lookups {
        return None;
    }
    let mut message = format!(
        "{op}: {}{} distinct keys, {} hits in {} lookups.",
        if s.distinct_exact { "" } else { "~" },
        group_thousands(s.distinct_keys),
        group_thousands(s.hits),
        group_thousands(lookups),
    );
    let per_call: Vec<&AttrStats> = s.attrs.iter().filter(|a| a.varies_per_call).collect();
    let constant: Vec<&str> = s
        .attrs
        .iter()
        .filter(|a| a.distinct_values == 1)
        .map(|a| a.name)
        .collect();
    let others: Vec<&AttrStats> = s
        .attrs
        .iter()
        .filter(|a| a.distinct_values > 1 && !a.varies_per_call)
        .collect();
    // The attrs the fix is about: those that vary on every call, else those that vary at all.
    let culprits = if per_call.is_empty() {
        if !others.is_empty() {
            message += &format!(
                " No single attr takes a new value on almost every call; together {} make almost \
                 every key new.",
                join(&others.iter().map(|a| describe(a)).collect::<Vec<_>>()),
            );
        }
        &others
    } else {
        let names: Vec<String> = per_call.iter().map(|a| describe(a)).collect();
        message += &format!(" New on almost every call: {}.", join(&names));
        if !others.is_empty() {
            let names: Vec<String> = others.iter().map(|a| describe(a)).collect();
            message += &format!(" Also varying: {}.", join(&names));
        }
        &per_call
    };
    if !constant.is_empty() {
        message += &format!(" Constant: {}.", join(&constant));
    }
    let fixes = fixes(op, culprits);
    if !fixes.is_empty() {
        message += &format!(
            " Each call caches a kernel that is never reused: {}.",
            fixes.join("; ")
        );
    }
    Some(ChurnWarning {
        op: op.to_string(),
        message,
        attrs: per_call.iter().map(|a| a.name).collect(),
    })
}

/// What an attr's values are, for choosing the fix.
#[derive(PartialEq)]
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

/// One clause per kind of culprit, in a fixed order.
fn fixes(op: &str, culprits: &[&AttrStats]) -> Vec<String> {
    let names = |k: Kind| -> Vec<&str> {
        culprits
            .iter()
            .filter(|a| kind(a) == k)
            .map(|a| a.name)
            .collect()
    };
    let mut out = Vec::new();
    let resource = names(Kind::ResourceName);
    if !resource.is_empty() {
        out.push(format!(
            "{} {} a resource, so give resources anonymous names (TF's fix; resourceNames: \
             'anonymous' for model loads) and one kernel serves them all",
            join(&resource),
            if resource.len() == 1 { "names" } else { "name" },
        ));
    }
    let value = names(Kind::Value);
    if !value.is_empty() {
        out.push(format!(
            "{} {} a value, so exclude {op} from the cache (cache.exclude), as TF does for ops whose \
             key is unique by nature",
            join(&value),
            if value.len() == 1 { "carries" } else { "carry" },
        ));
    }
    let other = names(Kind::Other);
    if !other.is_empty() {
        out.push(format!(
            "{} {} that the caller sets differently on almost every call, and no cache setting can \
             canonicalize that: pass values that repeat, or exclude {op} from the cache \
             (cache.exclude) to stop the growth",
            join(&other),
            if other.len() == 1 {
                "is an ordinary attr"
            } else {
                "are ordinary attrs"
            },
        ));
    }
    out
}

/// `shared_name (~1,000 values, e.g. "a_1", "b_2")`.
fn describe(a: &AttrStats) -> String {
    let examples = if a.examples.is_empty() {
        String::new()
    } else {
        format!(", e.g. {}", a.examples.join(", "))
    };
    format!(
        "{} ({}{} values{examples})",
        a.name,
        if a.distinct_exact { "" } else { "~" },
        group_thousands(a.distinct_values),
    )
}

/// `a`, `a and b`, `a, b and c`.
fn join<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::new();
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out += if i + 1 == items.len() { " and " } else { ", " };
        }
        out += s.as_ref();
    }
    out
}

fn group_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
