//! The op framework: attr values, op definitions, the registry, and attr resolution (validate what
//! the caller set, infer type attrs from inputs, fill defaults) into canonical `NodeAttrs`.

pub mod attr;
mod by_index;
pub mod def;
pub mod kernel;

pub use attr::{AttrType, AttrValue, ShapeAttr};
pub use def::{ArgCount, ArgType, AttrDef, AttrDefault, OpBuilder, OpDef, OpFlags};
pub use kernel::{ComputeFn, Kernel, KernelContext, KernelFactory, PrepareFn};

/// A kernel's single output as its output list. Out of line: `vec![t]` (an allocation and a
/// tensor copy) was expanded in each of the ~150 single-output kernels.
#[inline(never)]
pub fn one_output(t: crate::tensor::Tensor) -> Vec<crate::tensor::Tensor> {
    vec![t]
}

use crate::hash::FastBuild;
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Tensor};
use std::collections::HashMap;

pub struct Registry {
    ops: HashMap<&'static str, OpDef, FastBuild>,
    next_id: u32,
}

impl Registry {
    pub fn new(hasher: FastBuild) -> Registry {
        Registry {
            ops: HashMap::with_hasher(hasher),
            next_id: 0,
        }
    }

    /// Registration runs once: kept out of line so the many call sites stay small.
    #[inline(never)]
    pub fn add(&mut self, op: OpBuilder) {
        let mut def = op.build();
        def.id = self.next_id;
        self.next_id += 1;
        self.ops.insert(def.name, def);
    }

    /// One more than the largest `OpDef::id`.
    pub fn id_bound(&self) -> usize {
        self.next_id as usize
    }

    pub fn get(&self, name: &str) -> Option<&OpDef> {
        self.ops.get(name)
    }

    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.ops.keys().copied().collect();
        sort_small(&mut v, |a, b| a < b);
        v
    }
}

/// A stable insertion sort for the few short, cold lists the runtime sorts (op names, per-op
/// statistics, exclusion lists): a fraction of the code the std sorts bring per element type.
pub(crate) fn sort_small<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Attrs of one op invocation, complete and in the op's declared order: that order is canonical, so
/// two invocations with the same attrs in any order produce equal `NodeAttrs`.
#[derive(Clone)]
pub struct NodeAttrs {
    pub def: &'static OpDef,
    values: Vec<AttrValue>,
}

impl PartialEq for NodeAttrs {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.def, other.def) && self.values == other.values
    }
}

impl Eq for NodeAttrs {}

impl std::fmt::Debug for NodeAttrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for (d, v) in self.def.attrs.iter().zip(&self.values) {
            m.entry(&d.name, v);
        }
        m.finish()
    }
}

impl NodeAttrs {
    pub fn op(&self) -> &'static str {
        self.def.name
    }

    /// (name, value) pairs in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &AttrValue)> {
        self.def
            .attrs
            .iter()
            .map(|d| d.name)
            .zip(self.values.iter())
    }

    pub fn heap_bytes(&self) -> usize {
        self.values.capacity() * std::mem::size_of::<AttrValue>()
            + self.values.iter().map(AttrValue::heap_bytes).sum::<usize>()
    }

    pub fn get(&self, name: &str) -> Result<&AttrValue> {
        self.def
            .attr_index(name)
            .map(|i| &self.values[i])
            .ok_or_else(|| self.missing(name))
    }

    // The error paths out of line: inlined, they were formatted at each of the ~90 attr reads.
    #[cold]
    #[inline(never)]
    fn missing(&self, name: &str) -> crate::status::Status {
        invalid_argument(format!("op {} has no attr '{name}'", self.def.name))
    }

    #[cold]
    #[inline(never)]
    fn wrong(&self, name: &str, want: &str) -> crate::status::Status {
        invalid_argument(format!(
            "attr '{name}' of op {} must be {want}",
            self.def.name
        ))
    }

    pub fn bool(&self, name: &str) -> Result<bool> {
        match self.get(name)? {
            AttrValue::Bool(b) => Ok(*b),
            _ => Err(self.wrong(name, "a bool")),
        }
    }

    pub fn int(&self, name: &str) -> Result<i64> {
        match self.get(name)? {
            AttrValue::Int(i) => Ok(*i),
            _ => Err(self.wrong(name, "an int")),
        }
    }

    pub fn float(&self, name: &str) -> Result<f32> {
        match self.get(name)? {
            AttrValue::Float(f) => Ok(*f),
            _ => Err(self.wrong(name, "a float")),
        }
    }

    pub fn dtype(&self, name: &str) -> Result<DType> {
        match self.get(name)? {
            AttrValue::Type(t) => Ok(*t),
            _ => Err(self.wrong(name, "a type")),
        }
    }

    pub fn string(&self, name: &str) -> Result<String> {
        self.str(name).map(std::borrow::Cow::into_owned)
    }

    /// `string` without a copy when the bytes are valid UTF-8.
    pub fn str(&self, name: &str) -> Result<std::borrow::Cow<'_, str>> {
        match self.get(name)? {
            AttrValue::Str(s) => Ok(String::from_utf8_lossy(s)),
            _ => Err(self.wrong(name, "a string")),
        }
    }

    pub fn ints(&self, name: &str) -> Result<&[i64]> {
        match self.get(name)? {
            AttrValue::ListInt(l) => Ok(l),
            _ => Err(self.wrong(name, "a list of ints")),
        }
    }

    pub fn floats(&self, name: &str) -> Result<&[f32]> {
        match self.get(name)? {
            AttrValue::ListFloat(l) => Ok(l),
            _ => Err(self.wrong(name, "a list of floats")),
        }
    }

    pub fn strings(&self, name: &str) -> Result<Vec<String>> {
        match self.get(name)? {
            AttrValue::ListStr(l) => Ok(l
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()),
            _ => Err(self.wrong(name, "a list of strings")),
        }
    }

    pub fn shape(&self, name: &str) -> Result<&ShapeAttr> {
        match self.get(name)? {
            AttrValue::Shape(s) => Ok(s),
            _ => Err(self.wrong(name, "a shape")),
        }
    }

    pub fn tensor(&self, name: &str) -> Result<&Tensor> {
        match self.get(name)? {
            AttrValue::Tensor(t) => Ok(t),
            _ => Err(self.wrong(name, "a tensor")),
        }
    }
}

/// Ops with at most this many attrs resolve into a stack array (no allocation on the hit path).
pub const INLINE_ATTRS: usize = 12;

/// Validates caller attrs against `def`, infers type and count attrs from `inputs`, fills defaults.
/// Attrs whose name starts with `_` are TF-internal annotations and are ignored.
pub fn resolve_attrs<S: AsRef<str>>(
    def: &'static OpDef,
    inputs: &[Tensor],
    given: impl IntoIterator<Item = (S, AttrValue)>,
) -> Result<NodeAttrs> {
    let mut slots: Vec<Option<AttrValue>> = vec![None; def.attrs.len()];
    resolve_into(def, inputs, given, &mut slots)?;
    Ok(NodeAttrs::from_slots(def, &mut slots))
}

impl NodeAttrs {
    /// Takes the values out of slots filled by `resolve_into` (all `Some`).
    pub fn from_slots(def: &'static OpDef, slots: &mut [Option<AttrValue>]) -> NodeAttrs {
        NodeAttrs {
            def,
            values: slots
                .iter_mut()
                .map(|s| s.take().expect("resolve_into fills every slot"))
                .collect(),
        }
    }

    /// These attrs with every string type (also in type lists) made int32, if any was string.
    pub(crate) fn strings_as_int32(&self) -> Option<NodeAttrs> {
        let string = |t: &DType| *t == DType::String;
        let any = self.values.iter().any(|v| match v {
            AttrValue::Type(t) => string(t),
            AttrValue::ListType(l) => l.iter().any(string),
            _ => false,
        });
        if !any {
            return None;
        }
        let int32 = |t: DType| if t == DType::String { DType::Int32 } else { t };
        let values = self
            .values
            .iter()
            .map(|v| match v {
                AttrValue::Type(t) => AttrValue::Type(int32(*t)),
                AttrValue::ListType(l) => {
                    AttrValue::ListType(l.iter().map(|&t| int32(t)).collect())
                }
                v => v.clone(),
            })
            .collect();
        Some(NodeAttrs {
            def: self.def,
            values,
        })
    }

    /// The value of attr `i` (canonical order).
    pub fn value(&self, i: usize) -> &AttrValue {
        &self.values[i]
    }
}

/// `resolve_attrs` into caller-provided slots (`def.attrs.len()` of them, all `None`): on success
/// every slot is `Some`, in the op's declared (canonical) order.
pub fn resolve_into<S: AsRef<str>>(
    def: &'static OpDef,
    inputs: &[Tensor],
    given: impl IntoIterator<Item = (S, AttrValue)>,
    slots: &mut [Option<AttrValue>],
) -> Result<()> {
    let op = def.name;
    debug_assert_eq!(slots.len(), def.attrs.len());
    for (name, value) in given {
        let name = name.as_ref();
        let Some(i) = def.attr_index(name) else {
            if name.starts_with('_') {
                continue;
            }
            let known: Vec<_> = def.attrs.iter().map(|a| a.name).collect();
            return Err(invalid_argument(format!(
                "op {op} has no attr '{name}' (its attrs: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        };
        let spec = &def.attrs[i];
        let value = value.coerce(spec.ty).map_err(|v| {
            invalid_argument(format!(
                "attr '{name}' of op {op} must be {}, got {} {}",
                spec.ty.name(),
                v.attr_type().name(),
                v.describe()
            ))
        })?;
        check_one_of(op, spec, &value)?;
        slots[i] = Some(value);
    }
    bind_inputs(def, inputs, slots)?;
    for (spec, slot) in def.attrs.iter().zip(slots.iter_mut()) {
        if slot.is_none() {
            match spec.default {
                Some(d) => *slot = Some(d.value(spec.ty)),
                None => {
                    return Err(invalid_argument(format!(
                        "op {op} requires attr '{}' ({})",
                        spec.name,
                        spec.ty.name()
                    )))
                }
            }
        }
        if let Some(AttrValue::Type(t)) = slot {
            if !spec.allowed.is_empty() && !spec.allowed.contains(t) {
                let allowed: Vec<_> = spec.allowed.iter().map(|d| d.name()).collect();
                return Err(invalid_argument(format!(
                    "op {op} does not support {t} for attr '{}' (supported: {})",
                    spec.name,
                    allowed.join(", ")
                )));
            }
        }
    }
    Ok(())
}

fn check_one_of(op: &str, spec: &AttrDef, value: &AttrValue) -> Result<()> {
    if let (false, AttrValue::Str(s)) = (spec.one_of.is_empty(), value) {
        if !spec.one_of.iter().any(|o| o.as_bytes() == s.as_slice()) {
            return Err(invalid_argument(format!(
                "attr '{}' of op {op} must be one of {}, got \"{}\"",
                spec.name,
                spec.one_of.join(", "),
                String::from_utf8_lossy(s)
            )));
        }
    }
    Ok(())
}

/// Splits `inputs` over the declared args and infers/checks their type and count attrs.
fn bind_inputs(def: &OpDef, inputs: &[Tensor], slots: &mut [Option<AttrValue>]) -> Result<()> {
    let op = def.name;
    let fixed = def.fixed_inputs;
    let has_list = def.has_list;
    if (!has_list && inputs.len() != fixed) || inputs.len() < fixed {
        let names: Vec<_> = def.inputs.iter().map(|a| a.name).collect();
        return Err(invalid_argument(format!(
            "op {op} expects {}{fixed} input{} ({}), got {}",
            if has_list { "at least " } else { "" },
            if fixed == 1 { "" } else { "s" },
            names.join(", "),
            inputs.len()
        )));
    }
    let list_len = inputs.len() - fixed;
    let mut pos = 0;
    for arg in &def.inputs {
        let n = match arg.count {
            ArgCount::One => 1,
            _ => list_len,
        };
        let group = &inputs[pos..pos + n];
        pos += n;
        match (arg.count, arg.ty) {
            (ArgCount::TypeList(attr), _) => {
                let types: Vec<DType> = group.iter().map(Tensor::dtype).collect();
                bind_attr(
                    def,
                    slots,
                    arg.ty_index,
                    attr,
                    AttrValue::ListType(types),
                    arg.name,
                )?;
            }
            (count, ty) => {
                if let ArgCount::Number { attr: n_attr, min } = count {
                    if group.len() < min {
                        return Err(invalid_argument(format!(
                            "op {op} needs at least {min} '{}' input{}, got {}",
                            arg.name,
                            if min == 1 { "" } else { "s" },
                            group.len()
                        )));
                    }
                    bind_attr(
                        def,
                        slots,
                        arg.count_index,
                        n_attr,
                        AttrValue::Int(n as i64),
                        arg.name,
                    )?;
                }
                for t in group {
                    match ty {
                        ArgType::Fixed(d) if t.dtype() != d => {
                            return Err(invalid_argument(format!(
                                "input '{}' of op {op} must be {d}, got {}",
                                arg.name,
                                t.dtype()
                            )))
                        }
                        ArgType::Fixed(_) => {}
                        // Fast path: the type attr is unset, or set to this very dtype.
                        ArgType::Attr(_)
                            if arg.ty_index.is_some_and(|i| match &slots[i] {
                                None => {
                                    slots[i] = Some(AttrValue::Type(t.dtype()));
                                    true
                                }
                                Some(AttrValue::Type(d)) => *d == t.dtype(),
                                Some(_) => false,
                            }) => {}
                        ArgType::Attr(attr) => bind_attr(
                            def,
                            slots,
                            arg.ty_index,
                            attr,
                            AttrValue::Type(t.dtype()),
                            arg.name,
                        )?,
                    }
                }
            }
        }
    }
    Ok(())
}

/// Binds an inferred value to attr `index` (precomputed; `None`: the op declares no attr `attr`).
fn bind_attr(
    def: &OpDef,
    slots: &mut [Option<AttrValue>],
    index: Option<usize>,
    attr: &str,
    inferred: AttrValue,
    input: &str,
) -> Result<()> {
    let i = index
        .ok_or_else(|| invalid_argument(format!("op {} declares no attr '{attr}'", def.name)))?;
    match &slots[i] {
        Some(v) if *v != inferred => Err(invalid_argument(format!(
            "input '{input}' of op {} does not match attr '{attr}': inputs imply {}, attr says {}",
            def.name,
            inferred.describe(),
            v.describe()
        ))),
        Some(_) => Ok(()),
        None => {
            slots[i] = Some(inferred);
            Ok(())
        }
    }
}
