//! Op definitions: inputs, attrs with kinds and defaults, and flags, as TF's OpDef declares them.
//! Definitions live beside their kernels (`kernels/*`), built with the small builder below.

use super::attr::{AttrType, AttrValue};
use super::kernel::KernelFactory;
use crate::tensor::DType;

/// Where an input's dtype comes from.
#[derive(Debug, Clone, Copy)]
pub enum ArgType {
    /// A type attr (e.g. `T`), inferred from the input when not given.
    Attr(&'static str),
    Fixed(DType),
}

/// How many tensors an input takes.
#[derive(Debug, Clone, Copy)]
pub enum ArgCount {
    One,
    /// At least `min` tensors of one type; the int attr (e.g. `N`) is inferred.
    Number {
        attr: &'static str,
        min: usize,
    },
    /// A list of tensors typed by a `list(type)` attr (IdentityN's `T`).
    TypeList(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub struct ArgDef {
    pub name: &'static str,
    pub ty: ArgType,
    pub count: ArgCount,
    /// Index in `OpDef::attrs` of the type attr (`ArgType::Attr`) or `list(type)` attr
    /// (`ArgCount::TypeList`); set by `OpBuilder::build`.
    pub ty_index: Option<usize>,
    /// Index of the count attr of an `ArgCount::Number` input; set by `OpBuilder::build`.
    pub count_index: Option<usize>,
}

/// A default value, in a form that can live in a `static`-like table.
#[derive(Debug, Clone, Copy)]
pub enum AttrDefault {
    Bool(bool),
    Int(i64),
    Float(f32),
    Str(&'static str),
    Type(DType),
    Ints(&'static [i64]),
    EmptyList,
    UnknownShape,
}

impl AttrDefault {
    pub fn value(self, ty: AttrType) -> AttrValue {
        match self {
            AttrDefault::Bool(b) => AttrValue::Bool(b),
            AttrDefault::Int(i) => AttrValue::Int(i),
            AttrDefault::Float(f) => AttrValue::Float(f),
            AttrDefault::Str(s) => AttrValue::Str(s.as_bytes().to_vec()),
            AttrDefault::Type(t) => AttrValue::Type(t),
            AttrDefault::Ints(l) => AttrValue::ListInt(l.to_vec()),
            AttrDefault::UnknownShape => AttrValue::Shape(None),
            AttrDefault::EmptyList => AttrValue::ListInt(Vec::new())
                .coerce(ty)
                .unwrap_or(AttrValue::ListInt(Vec::new())),
        }
    }
}

#[derive(Debug, Clone)]
pub struct AttrDef {
    pub name: &'static str,
    /// `fast_hash(name)`, precomputed for the cache key fingerprint; set by `OpBuilder::build`.
    pub name_hash: u64,
    pub ty: AttrType,
    pub default: Option<AttrDefault>,
    /// For type attrs: the dtypes the op accepts (empty: any).
    pub allowed: &'static [DType],
    /// For string attrs: the values the op accepts (empty: any).
    pub one_of: &'static [&'static str],
}

#[derive(Debug, Clone, Copy, Default)]
pub struct OpFlags {
    /// Has side effects (resources); never folded or deduplicated.
    pub stateful: bool,
    /// Its cache key is unique by nature (e.g. carries a tensor value); excluded from the kernel
    /// cache by default, like TF's tf.data exclusion list.
    pub unique_key: bool,
    /// Moves or compares elements without reading them: string tensors run through the kernel as
    /// int32 ids of their elements (`ops::by_index`).
    pub strings_by_index: bool,
}

pub struct OpDef {
    pub name: &'static str,
    /// Dense index of the op in the registry (per-op statistics are a vector indexed by it).
    pub id: u32,
    /// `fast_hash(name)`, precomputed for the cache key fingerprint.
    pub name_hash: u64,
    /// Inputs that take exactly one tensor; `has_list`: one input takes a list.
    pub fixed_inputs: usize,
    pub has_list: bool,
    pub inputs: Vec<ArgDef>,
    pub attrs: Vec<AttrDef>,
    pub flags: OpFlags,
    pub factory: KernelFactory,
}

impl OpDef {
    pub fn attr_index(&self, name: &str) -> Option<usize> {
        // Callers that took the name from this very definition (the graph executor) match on the
        // pointer, without comparing bytes.
        self.attrs
            .iter()
            .position(|a| std::ptr::eq(a.name, name) || a.name == name)
    }
}

/// Builder: `reg.op("MatMul", f).input("a", T).input("b", T).type_attr("T", FLOATS_INTS)...`
/// The definition is boxed: each step of the chain then moves one pointer instead of copying the
/// whole `OpDef`, which keeps the registry's construction (a few hundred chains) small.
pub struct OpBuilder {
    def: Box<OpDef>,
}

impl OpBuilder {
    /// Applies a shared group of declarations (e.g. the conv-window attrs of `kernels::nn::window`).
    pub fn with(self, group: impl FnOnce(Self) -> Self) -> Self {
        group(self)
    }

    #[inline(never)]
    pub fn new(name: &'static str, factory: KernelFactory) -> OpBuilder {
        OpBuilder {
            def: Box::new(OpDef {
                name,
                id: 0,
                name_hash: 0,
                fixed_inputs: 0,
                has_list: false,
                inputs: Vec::new(),
                attrs: Vec::new(),
                flags: OpFlags::default(),
                factory,
            }),
        }
    }

    /// One input typed by attr `ty_attr`.
    #[inline(never)]
    pub fn input(mut self, name: &'static str, ty_attr: &'static str) -> Self {
        self.def.inputs.push(ArgDef {
            name,
            ty: ArgType::Attr(ty_attr),
            count: ArgCount::One,
            ty_index: None,
            count_index: None,
        });
        self
    }

    #[inline(never)]
    pub fn fixed_input(mut self, name: &'static str, dtype: DType) -> Self {
        self.def.inputs.push(ArgDef {
            name,
            ty: ArgType::Fixed(dtype),
            count: ArgCount::One,
            ty_index: None,
            count_index: None,
        });
        self
    }

    /// `N` >= 1 inputs typed by `ty_attr`; adds the int attr `n_attr` (inferred).
    #[inline(never)]
    pub fn inputs_n(self, name: &'static str, n_attr: &'static str, ty_attr: &'static str) -> Self {
        self.inputs_n_min(name, n_attr, ty_attr, 1)
    }

    /// `N` >= `min` inputs (TF's `N: int >= min`), typed by `ty_attr`; adds `n_attr` (inferred).
    #[inline(never)]
    pub fn inputs_n_min(
        mut self,
        name: &'static str,
        n_attr: &'static str,
        ty_attr: &'static str,
        min: usize,
    ) -> Self {
        self.def.inputs.push(ArgDef {
            name,
            ty: ArgType::Attr(ty_attr),
            count: ArgCount::Number { attr: n_attr, min },
            ty_index: None,
            count_index: None,
        });
        self.attr(n_attr, AttrType::Int, None)
    }

    /// A list of inputs typed by the `list(type)` attr `types_attr` (added, inferred).
    #[inline(never)]
    pub fn inputs_typed(mut self, name: &'static str, types_attr: &'static str) -> Self {
        self.def.inputs.push(ArgDef {
            name,
            ty: ArgType::Attr(types_attr),
            count: ArgCount::TypeList(types_attr),
            ty_index: None,
            count_index: None,
        });
        self.attr(types_attr, AttrType::ListType, None)
    }

    #[inline(never)]
    pub fn attr(mut self, name: &'static str, ty: AttrType, default: Option<AttrDefault>) -> Self {
        self.def.attrs.push(AttrDef {
            name,
            name_hash: 0,
            ty,
            default,
            allowed: &[],
            one_of: &[],
        });
        self
    }

    /// A type attr with the dtypes it accepts; `default` is used when no input determines it.
    #[inline(never)]
    pub fn type_attr(mut self, name: &'static str, allowed: &'static [DType]) -> Self {
        self.def.attrs.push(AttrDef {
            name,
            name_hash: 0,
            ty: AttrType::Type,
            default: None,
            allowed,
            one_of: &[],
        });
        self
    }

    #[inline(never)]
    pub fn type_attr_default(
        self,
        name: &'static str,
        allowed: &'static [DType],
        d: DType,
    ) -> Self {
        let mut b = self.type_attr(name, allowed);
        if let Some(last) = b.def.attrs.last_mut() {
            last.default = Some(AttrDefault::Type(d));
        }
        b
    }

    #[inline(never)]
    pub fn bool_attr(self, name: &'static str, default: bool) -> Self {
        self.attr(name, AttrType::Bool, Some(AttrDefault::Bool(default)))
    }

    #[inline(never)]
    pub fn int_attr(self, name: &'static str, default: Option<i64>) -> Self {
        self.attr(name, AttrType::Int, default.map(AttrDefault::Int))
    }

    #[inline(never)]
    pub fn float_attr(self, name: &'static str, default: f32) -> Self {
        self.attr(name, AttrType::Float, Some(AttrDefault::Float(default)))
    }

    #[inline(never)]
    pub fn ints_attr(self, name: &'static str, default: Option<&'static [i64]>) -> Self {
        self.attr(name, AttrType::ListInt, default.map(AttrDefault::Ints))
    }

    /// A string attr restricted to `one_of` (e.g. padding SAME/VALID/EXPLICIT).
    #[inline(never)]
    pub fn enum_attr(
        mut self,
        name: &'static str,
        one_of: &'static [&'static str],
        default: Option<&'static str>,
    ) -> Self {
        self.def.attrs.push(AttrDef {
            name,
            name_hash: 0,
            ty: AttrType::String,
            default: default.map(AttrDefault::Str),
            allowed: &[],
            one_of,
        });
        self
    }

    #[inline(never)]
    pub fn string_attr(self, name: &'static str, default: Option<&'static str>) -> Self {
        self.attr(name, AttrType::String, default.map(AttrDefault::Str))
    }

    #[inline(never)]
    pub fn stateful(mut self) -> Self {
        self.def.flags.stateful = true;
        self
    }

    #[inline(never)]
    pub fn unique_key(mut self) -> Self {
        self.def.flags.unique_key = true;
        self
    }

    #[inline(never)]
    pub fn strings_by_index(mut self) -> Self {
        self.def.flags.strings_by_index = true;
        self
    }

    /// Finishes the definition: precomputed hashes and attr indices for the dispatch path.
    #[inline(never)]
    pub fn build(mut self) -> OpDef {
        let d = &mut self.def;
        d.name_hash = crate::hash::fast_hash(d.name);
        for a in &mut d.attrs {
            a.name_hash = crate::hash::fast_hash(a.name);
        }
        let index = |attrs: &[AttrDef], n: &str| attrs.iter().position(|a| a.name == n);
        for i in 0..d.inputs.len() {
            let arg = d.inputs[i];
            let ty_index = match (arg.count, arg.ty) {
                (ArgCount::TypeList(a), _) | (_, ArgType::Attr(a)) => index(&d.attrs, a),
                _ => None,
            };
            let count_index = match arg.count {
                ArgCount::Number { attr, .. } => index(&d.attrs, attr),
                _ => None,
            };
            d.inputs[i].ty_index = ty_index;
            d.inputs[i].count_index = count_index;
        }
        d.fixed_inputs = d
            .inputs
            .iter()
            .filter(|a| matches!(a.count, ArgCount::One))
            .count();
        d.has_list = d.fixed_inputs < d.inputs.len();
        *self.def
    }
}

/// Common dtype sets for type attrs.
pub const FLOAT: &[DType] = &[DType::Float32];
pub const NUMERIC: &[DType] = &[DType::Float32, DType::Int32, DType::Int64];
pub const INDEX: &[DType] = &[DType::Int32, DType::Int64];
pub const ANY: &[DType] = &[];
