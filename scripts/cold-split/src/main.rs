//! Splits the release `.wasm` in two: the functions a profile run executed (the primary module, what
//! `init()` downloads) and all the others (the cold module, fetched and instantiated on first use).
//!
//! In the primary, each cold function keeps its index, type and exports, but its body becomes a stub:
//! if the cold module is not instantiated yet, call the loader import (JS instantiates the cold
//! module synchronously, which fills a table of its functions), then `call_indirect` into that
//! table. The cold module imports the primary's memory, the tables and globals its code touches and
//! every primary function it calls, all exported by the primary under `__f<index>`-style names, so
//! the two run as one program on one memory. Data segments stay in the primary. The primary names
//! the cold module's file in an export, `__cold_file:<name>`.
//!
//! Commands:
//!   cold-split names IN.wasm                      index and name of each defined function (tab-separated)
//!   cold-split cold IN.wasm HOT.txt...            the indices of the functions `split` makes cold
//!   cold-split instrument IN.wasm OUT.wasm        each defined function sets an exported global
//!                                                 `__h<index>` to 1 on entry (the profile run)
//!   cold-split split IN.wasm PRIMARY.wasm COLD.wasm HOT.txt...
//!                                                 HOT.txt: the names of the functions to keep in
//!                                                 the primary, one per line (`#` comments)
//!
//! The loader import is the one whose name contains `loadColdCode` (declared in src/bindings).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::process::ExitCode;

use wasm_encoder::reencode::{self, Reencode, RoundtripReencoder};
use wasm_encoder::{
    CodeSection, ConstExpr, ElementSection, Elements, EntityType, ExportKind, ExportSection,
    Function, FunctionSection, GlobalSection, GlobalType, ImportSection, Instruction, MemoryType,
    Module, RefType, TableSection, TableType, TypeSection, ValType,
};
use wasmparser::{FunctionBody, Name, Operator, Parser, Payload, TypeRef};

type Res<T> = Result<T, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

const LOADER_IMPORT: &str = "loadColdCode";

/// What the splitter needs to know about the input module.
#[derive(Default)]
struct Info<'a> {
    /// Type index of every function, imported ones first.
    func_types: Vec<u32>,
    imported_funcs: u32,
    /// Param count of each type index (function types only; others hold 0).
    type_params: Vec<u32>,
    tables: Vec<wasmparser::TableType>,
    memories: Vec<wasmparser::MemoryType>,
    globals: Vec<wasmparser::GlobalType>,
    bodies: Vec<FunctionBody<'a>>,
    names: HashMap<u32, String>,
    loader: Option<u32>,
    start: Option<u32>,
}

fn read_info(wasm: &[u8]) -> Res<Info<'_>> {
    let mut info = Info::default();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(err)? {
            Payload::TypeSection(r) => {
                for group in r {
                    for sub in group.map_err(err)?.into_types() {
                        let params = match &sub.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(f) => f.params().len() as u32,
                            _ => 0,
                        };
                        info.type_params.push(params);
                    }
                }
            }
            Payload::ImportSection(r) => {
                for imp in r.into_imports() {
                    let imp = imp.map_err(err)?;
                    match imp.ty {
                        TypeRef::Func(t) | TypeRef::FuncExact(t) => {
                            if imp.name.contains(LOADER_IMPORT) {
                                info.loader = Some(info.func_types.len() as u32);
                            }
                            info.func_types.push(t);
                            info.imported_funcs += 1;
                        }
                        TypeRef::Table(t) => info.tables.push(t),
                        TypeRef::Memory(m) => info.memories.push(m),
                        TypeRef::Global(g) => info.globals.push(g),
                        TypeRef::Tag(_) => return Err("tags are not supported".into()),
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    info.func_types.push(t.map_err(err)?);
                }
            }
            Payload::TableSection(r) => {
                for t in r {
                    info.tables.push(t.map_err(err)?.ty);
                }
            }
            Payload::MemorySection(r) => {
                for m in r {
                    info.memories.push(m.map_err(err)?);
                }
            }
            Payload::GlobalSection(r) => {
                for g in r {
                    info.globals.push(g.map_err(err)?.ty);
                }
            }
            Payload::StartSection { func, .. } => info.start = Some(func),
            Payload::CodeSectionEntry(body) => info.bodies.push(body),
            Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                    for sub in names {
                        if let Ok(Name::Function(map)) = sub {
                            for naming in map.into_iter().flatten() {
                                info.names.insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if info.memories.len() != 1 {
        return Err(format!(
            "expected one memory, found {}",
            info.memories.len()
        ));
    }
    Ok(info)
}

/// A function's name without what changes with the toolchain, the crate's features or unrelated
/// edits: crate disambiguators (`core[79aa79c6299ed9a6]::`) and the legacy mangling hash
/// (`::h0123456789abcdef`), so that a committed list of hot names stays valid across them.
fn stable_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find('[') {
        let hex = rest[i + 1..]
            .bytes()
            .take_while(u8::is_ascii_hexdigit)
            .count();
        out.push_str(&rest[..i]);
        if hex == 16 && rest.as_bytes().get(i + 17) == Some(&b']') {
            rest = &rest[i + 18..];
        } else {
            out.push('[');
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    match out.rfind("::h") {
        Some(i) if out.len() - i == 19 && out[i + 3..].bytes().all(|b| b.is_ascii_hexdigit()) => {
            out.truncate(i)
        }
        _ => {}
    }
    out
}

fn cmd_names(wasm: &[u8]) -> Res<()> {
    let info = read_info(wasm)?;
    if info.names.is_empty() {
        return Err("the module has no name section (build with wasm-opt -g)".into());
    }
    for i in info.imported_funcs..info.func_types.len() as u32 {
        let name = info.names.get(&i).map_or(String::new(), |n| stable_name(n));
        println!("{i}\t{name}");
    }
    Ok(())
}

/// Appends globals/exports and rewrites bodies; everything else round-trips unchanged.
struct Instrument {
    first_global: u32,
    imported_funcs: u32,
    defined: u32,
    next_body: u32,
}

impl Reencode for Instrument {
    type Error = std::convert::Infallible;

    fn parse_global_section(
        &mut self,
        globals: &mut GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_global_section(self, globals, section)?;
        for _ in 0..self.defined {
            globals.global(mutable_i32(), &ConstExpr::i32_const(0));
        }
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_export_section(self, exports, section)?;
        for k in 0..self.defined {
            exports.export(
                &format!("__h{}", self.imported_funcs + k),
                ExportKind::Global,
                self.first_global + k,
            );
        }
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut CodeSection,
        func: FunctionBody<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        let mut f = self.new_function_with_parsed_locals(&func)?;
        f.instruction(&Instruction::I32Const(1));
        f.instruction(&Instruction::GlobalSet(self.first_global + self.next_body));
        self.next_body += 1;
        let mut reader = func.get_operators_reader()?;
        while !reader.eof() {
            f.instruction(&self.parse_instruction(&mut reader)?);
        }
        code.function(&f);
        Ok(())
    }
}

fn mutable_i32() -> GlobalType {
    GlobalType {
        val_type: ValType::I32,
        mutable: true,
        shared: false,
    }
}

fn cmd_instrument(wasm: &[u8]) -> Res<Vec<u8>> {
    let info = read_info(wasm)?;
    if info.globals.is_empty() {
        return Err("the module has no global section to extend".into());
    }
    let mut r = Instrument {
        first_global: info.globals.len() as u32,
        imported_funcs: info.imported_funcs,
        defined: info.bodies.len() as u32,
        next_body: 0,
    };
    let mut module = Module::new();
    r.parse_core_module(&mut module, Parser::new(0), wasm)
        .map_err(err)?;
    Ok(module.finish())
}

/// What the cold functions reference outside themselves.
#[derive(Default)]
struct Uses {
    funcs: BTreeSet<u32>,
    globals: BTreeSet<u32>,
    tables: BTreeSet<u32>,
}

/// Why a function must stay in the primary whatever the profile says: these instructions name
/// module items (segments, function references) the cold module cannot import.
fn must_stay(body: &FunctionBody<'_>) -> Res<bool> {
    let mut ops = body.get_operators_reader().map_err(err)?;
    while !ops.eof() {
        match ops.read().map_err(err)? {
            Operator::MemoryInit { .. }
            | Operator::DataDrop { .. }
            | Operator::TableInit { .. }
            | Operator::ElemDrop { .. }
            | Operator::RefFunc { .. } => return Ok(true),
            _ => {}
        }
    }
    Ok(false)
}

fn collect_uses(body: &FunctionBody<'_>, uses: &mut Uses) -> Res<()> {
    let mut ops = body.get_operators_reader().map_err(err)?;
    while !ops.eof() {
        match ops.read().map_err(err)? {
            Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                uses.funcs.insert(function_index);
            }
            Operator::GlobalGet { global_index } | Operator::GlobalSet { global_index } => {
                uses.globals.insert(global_index);
            }
            Operator::CallIndirect { table_index, .. }
            | Operator::ReturnCallIndirect { table_index, .. } => {
                uses.tables.insert(table_index);
            }
            Operator::TableGet { table }
            | Operator::TableSet { table }
            | Operator::TableGrow { table }
            | Operator::TableSize { table }
            | Operator::TableFill { table } => {
                uses.tables.insert(table);
            }
            Operator::TableCopy {
                dst_table,
                src_table,
            } => {
                uses.tables.insert(dst_table);
                uses.tables.insert(src_table);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The primary: cold bodies replaced by stubs; the cold table, the ready flag, the split id and
/// what the cold module imports added.
struct Primary<'i> {
    cold_index: &'i HashMap<u32, u32>, // function index -> slot in the cold table
    func_types: &'i [u32],
    type_params: &'i [u32],
    imported_funcs: u32,
    loader: u32,
    cold_table: u32,
    ready_global: u32,
    id_global: u32,
    split_id: String,
    cold_file: String,
    uses: &'i Uses,
    next_body: u32,
}

impl Reencode for Primary<'_> {
    type Error = std::convert::Infallible;

    fn parse_table_section(
        &mut self,
        tables: &mut TableSection,
        section: wasmparser::TableSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_table_section(self, tables, section)?;
        tables.table(cold_table_type(self.cold_index.len() as u64));
        Ok(())
    }

    fn parse_global_section(
        &mut self,
        globals: &mut GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_global_section(self, globals, section)?;
        globals.global(mutable_i32(), &ConstExpr::i32_const(0));
        globals.global(
            GlobalType {
                val_type: ValType::I32,
                mutable: false,
                shared: false,
            },
            &ConstExpr::i32_const(0),
        );
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_export_section(self, exports, section)?;
        exports.export("__cold_ready", ExportKind::Global, self.ready_global);
        exports.export(&self.split_id, ExportKind::Global, self.id_global);
        // Names the cold module's file, for the JS loader to find it next to the primary.
        exports.export(
            &format!("__cold_file:{}", self.cold_file),
            ExportKind::Global,
            self.id_global,
        );
        exports.export("__m", ExportKind::Memory, 0);
        exports.export(
            &format!("__t{}", self.cold_table),
            ExportKind::Table,
            self.cold_table,
        );
        for &t in &self.uses.tables {
            exports.export(&format!("__t{t}"), ExportKind::Table, t);
        }
        for &g in &self.uses.globals {
            exports.export(&format!("__g{g}"), ExportKind::Global, g);
        }
        for &f in &self.uses.funcs {
            if !self.cold_index.contains_key(&f) {
                exports.export(&format!("__f{f}"), ExportKind::Func, f);
            }
        }
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut CodeSection,
        func: FunctionBody<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        let index = self.imported_funcs + self.next_body;
        self.next_body += 1;
        let Some(&slot) = self.cold_index.get(&index) else {
            code.raw(func.as_bytes());
            return Ok(());
        };
        let ty = self.func_types[index as usize];
        let mut f = Function::new([]);
        f.instruction(&Instruction::GlobalGet(self.ready_global));
        f.instruction(&Instruction::I32Eqz);
        f.instruction(&Instruction::If(wasm_encoder::BlockType::Empty));
        f.instruction(&Instruction::Call(self.loader));
        f.instruction(&Instruction::End);
        for p in 0..self.type_params[ty as usize] {
            f.instruction(&Instruction::LocalGet(p));
        }
        f.instruction(&Instruction::I32Const(slot as i32));
        f.instruction(&Instruction::CallIndirect {
            type_index: ty,
            table_index: self.cold_table,
        });
        f.instruction(&Instruction::End);
        code.function(&f);
        Ok(())
    }

    fn parse_custom_section(
        &mut self,
        module: &mut Module,
        section: wasmparser::CustomSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        if section.name() == "name" {
            return Ok(()); // the names were only for the split
        }
        reencode::utils::parse_custom_section(self, module, section)
    }
}

fn cold_table_type(len: u64) -> TableType {
    TableType {
        element_type: RefType::FUNCREF,
        table64: false,
        minimum: len,
        maximum: Some(len),
        shared: false,
    }
}

/// Rewrites the cold bodies' indices into the cold module's index spaces.
struct Remap<'m> {
    funcs: &'m HashMap<u32, u32>,
    globals: &'m HashMap<u32, u32>,
    tables: &'m HashMap<u32, u32>,
}

impl Reencode for Remap<'_> {
    type Error = std::convert::Infallible;
    fn function_index(&mut self, f: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.funcs[&f])
    }
    fn global_index(&mut self, g: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.globals[&g])
    }
    fn table_index(&mut self, t: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.tables[&t])
    }
}

fn val_type(t: wasmparser::ValType) -> Res<ValType> {
    RoundtripReencoder.val_type(t).map_err(err)
}

/// The functions the cold module gets: defined, not run by the profile, not the start function,
/// and naming nothing it could not import.
fn cold_functions(info: &Info<'_>, hot_list: &str) -> Res<Vec<u32>> {
    if info.names.is_empty() {
        return Err("the module has no name section (build with wasm-opt -g)".into());
    }
    let hot: HashSet<&str> = hot_list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut cold = Vec::new();
    for (k, body) in info.bodies.iter().enumerate() {
        let index = info.imported_funcs + k as u32;
        let name = info
            .names
            .get(&index)
            .map_or(String::new(), |n| stable_name(n));
        if hot.contains(name.as_str()) || Some(index) == info.start || must_stay(body)? {
            continue;
        }
        cold.push(index);
    }
    Ok(cold)
}

fn cmd_split(wasm: &[u8], hot_list: &str, cold_file: &str) -> Res<(Vec<u8>, Vec<u8>, String)> {
    let info = read_info(wasm)?;
    let loader = info.loader.ok_or_else(|| {
        format!("no import named *{LOADER_IMPORT}*: build with the `cold-split` feature")
    })?;
    let cold = cold_functions(&info, hot_list)?;
    let cold_index: HashMap<u32, u32> = cold
        .iter()
        .enumerate()
        .map(|(slot, &f)| (f, slot as u32))
        .collect();
    let mut uses = Uses::default();
    for &f in &cold {
        collect_uses(&info.bodies[(f - info.imported_funcs) as usize], &mut uses)?;
    }
    let cold_table = info.tables.len() as u32;
    let ready_global = info.globals.len() as u32;
    let split_id = format!("__split_{:016x}", fnv1a(wasm));

    let mut primary = Primary {
        cold_index: &cold_index,
        func_types: &info.func_types,
        type_params: &info.type_params,
        imported_funcs: info.imported_funcs,
        loader,
        cold_table,
        ready_global,
        id_global: ready_global + 1,
        split_id: split_id.clone(),
        cold_file: cold_file.to_string(),
        uses: &uses,
        next_body: 0,
    };
    let mut primary_module = Module::new();
    primary
        .parse_core_module(&mut primary_module, Parser::new(0), wasm)
        .map_err(err)?;

    // The cold module: the input's types, imports from the primary, the cold bodies.
    let mut types = TypeSection::new();
    let mut imports = ImportSection::new();
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::TypeSection(r) = payload.map_err(err)? {
            RoundtripReencoder
                .parse_type_section(&mut types, r)
                .map_err(err)?;
        }
    }
    let mem = &info.memories[0];
    imports.import(
        "p",
        "__m",
        MemoryType {
            minimum: mem.initial,
            maximum: mem.maximum,
            memory64: mem.memory64,
            shared: mem.shared,
            page_size_log2: mem.page_size_log2,
        },
    );
    imports.import(
        "p",
        &split_id,
        EntityType::Global(GlobalType {
            val_type: ValType::I32,
            mutable: false,
            shared: false,
        }),
    );
    let mut tables = HashMap::new();
    let mut table_imports: Vec<u32> = uses.tables.iter().copied().collect();
    table_imports.push(cold_table);
    for (i, &t) in table_imports.iter().enumerate() {
        let ty = if t == cold_table {
            cold_table_type(cold.len() as u64)
        } else {
            let src = &info.tables[t as usize];
            TableType {
                element_type: RoundtripReencoder.ref_type(src.element_type).map_err(err)?,
                table64: src.table64,
                minimum: src.initial,
                maximum: src.maximum,
                shared: src.shared,
            }
        };
        imports.import("p", &format!("__t{t}"), EntityType::Table(ty));
        tables.insert(t, i as u32);
    }
    let mut globals = HashMap::new();
    globals.insert(u32::MAX, 0); // the split id, never referenced by code
    for (i, &g) in uses.globals.iter().enumerate() {
        let src = &info.globals[g as usize];
        let ty = GlobalType {
            val_type: val_type(src.content_type)?,
            mutable: src.mutable,
            shared: src.shared,
        };
        imports.import("p", &format!("__g{g}"), EntityType::Global(ty));
        globals.insert(g, 1 + i as u32);
    }
    let mut funcs = HashMap::new();
    for &f in uses.funcs.iter().filter(|f| !cold_index.contains_key(f)) {
        funcs.insert(f, funcs.len() as u32);
        imports.import(
            "p",
            &format!("__f{f}"),
            EntityType::Function(info.func_types[f as usize]),
        );
    }
    let first_defined = funcs.len() as u32;
    let mut functions = FunctionSection::new();
    for (slot, &f) in cold.iter().enumerate() {
        funcs.insert(f, first_defined + slot as u32);
        functions.function(info.func_types[f as usize]);
    }
    let mut elements = ElementSection::new();
    let defined: Vec<u32> = (first_defined..first_defined + cold.len() as u32).collect();
    elements.active(
        Some(tables[&cold_table]),
        &ConstExpr::i32_const(0),
        Elements::Functions(defined.into()),
    );
    let mut code = CodeSection::new();
    let mut remap = Remap {
        funcs: &funcs,
        globals: &globals,
        tables: &tables,
    };
    for &f in &cold {
        let body = info.bodies[(f - info.imported_funcs) as usize].clone();
        remap.parse_function_body(&mut code, body).map_err(err)?;
    }
    let mut cold_module = Module::new();
    cold_module
        .section(&types)
        .section(&imports)
        .section(&functions)
        .section(&elements)
        .section(&code);

    let report = format!(
        "{} of {} functions cold; the cold module imports {} functions, {} globals, {} tables",
        cold.len(),
        info.bodies.len(),
        first_defined,
        uses.globals.len(),
        table_imports.len()
    );
    Ok((primary_module.finish(), cold_module.finish(), report))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn validate(wasm: &[u8], what: &str) -> Res<()> {
    let features = wasmparser::WasmFeatures::all();
    wasmparser::Validator::new_with_features(features)
        .validate_all(wasm)
        .map_err(|e| format!("{what}: {e}"))?;
    Ok(())
}

/// Hot lists, one name a line, concatenated.
fn read_lists(paths: &[String]) -> Res<String> {
    let mut all = String::new();
    for p in paths {
        all += &std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
        all.push('\n');
    }
    Ok(all)
}

fn run(args: &[String]) -> Res<()> {
    let read = |p: &String| std::fs::read(p).map_err(|e| format!("{p}: {e}"));
    let write = |p: &String, b: &[u8]| std::fs::write(p, b).map_err(|e| format!("{p}: {e}"));
    match args {
        [cmd, input] if cmd == "names" => cmd_names(&read(input)?),
        [cmd, input, hot @ ..] if cmd == "cold" && !hot.is_empty() => {
            let wasm = read(input)?;
            for f in cold_functions(&read_info(&wasm)?, &read_lists(hot)?)? {
                println!("{f}");
            }
            Ok(())
        }
        [cmd, input, output] if cmd == "instrument" => {
            let out = cmd_instrument(&read(input)?)?;
            validate(&out, "instrumented module")?;
            write(output, &out)
        }
        [cmd, input, primary, cold, hot @ ..] if cmd == "split" && !hot.is_empty() => {
            let hot = read_lists(hot)?;
            let file = std::path::Path::new(cold)
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or_default();
            let (p, c, report) = cmd_split(&read(input)?, &hot, file)?;
            validate(&p, "primary module")?;
            validate(&c, "cold module")?;
            write(primary, &p)?;
            write(cold, &c)?;
            eprintln!("cold-split: {report}");
            Ok(())
        }
        _ => Err(
            "usage: cold-split names IN | cold IN HOT.txt... | instrument IN OUT | split IN PRIMARY COLD HOT.txt..."
                .into(),
        ),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cold-split: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stable_name;

    #[test]
    fn stable_names_drop_disambiguators_and_hashes_only() {
        assert_eq!(
            stable_name(
                "<alloc[cf9214e59fe22b22]::rc::Rc<eager_wasm[7450a7eab7005d8b]::X>>::drop_slow"
            ),
            "<alloc::rc::Rc<eager_wasm::X>>::drop_slow"
        );
        assert_eq!(
            stable_name("eager_wasm::kernels::nn::conv::h0123456789abcdef"),
            "eager_wasm::kernels::nn::conv"
        );
        // not a disambiguator: an index, a short hex run, a slice type
        assert_eq!(stable_name("finish_grow[2]"), "finish_grow[2]");
        assert_eq!(stable_name("f[abc]"), "f[abc]");
        assert_eq!(stable_name("<[u8] as Eq>::eq"), "<[u8] as Eq>::eq");
        assert_eq!(stable_name("x::h0123"), "x::h0123");
    }
}
