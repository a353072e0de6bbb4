// Fails when a module of src/ refers to a module of a higher layer (the layering the README's
// Layout section documents), or when the files of one module refer to each other in a circle.
// Reads every `crate::` path outside comments, strings and test modules, in `use` lines (groups
// expanded) and inline paths alike, `super::` chains, and paths through the child modules a file
// declares. `node scripts/check-layers.mjs [SRC_DIR]` checks SRC_DIR (default: the crate's src/).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lowest first; a module may refer to its own layer's module and to lower layers only. Modules on
// one line are siblings that must not refer to each other either (each is a leaf of its layer).
const LAYERS = [
  ['status', 'memory', 'parallel', 'hash', 'handles'],
  ['tensor'],
  ['resource'],
  ['ops'],
  ['kernels'],
  ['registry'],
  ['eager'],
  ['model'],
  ['bindings'],
];
const rank = new Map(LAYERS.flatMap((mods, i) => mods.map((m) => [m, i])));

const root = process.argv[2] ? resolve(process.argv[2]) : new URL('../src/', import.meta.url).pathname;
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.rs')) files.push(p);
  }
})(root);

// The code of a file with comments, string and char literals blanked (newlines kept, so offsets
// keep their line numbers), cut before its test module (tests may use anything: they exercise a
// layer from above).
function code(text) {
  let out = '';
  let i = 0;
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  while (i < text.length) {
    const rest = text.slice(i, i + 3);
    let m;
    if (rest.startsWith('//')) {
      const end = text.indexOf('\n', i);
      m = text.slice(i, end < 0 ? text.length : end);
    } else if (rest.startsWith('/*')) {
      let depth = 0;
      let j = i;
      do {
        if (text.startsWith('/*', j)) (depth++, (j += 2));
        else if (text.startsWith('*/', j)) (depth--, (j += 2));
        else j++;
      } while (depth > 0 && j < text.length);
      m = text.slice(i, j);
    } else if (!/\w/.test(text[i - 1] ?? '') && (m = /^b?r(#*)"/.exec(text.slice(i, i + 40)))) {
      const close = `"${m[1]}`;
      const end = text.indexOf(close, i + m[0].length);
      m = text.slice(i, end < 0 ? text.length : end + close.length);
    } else if (text[i] === '"') {
      m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(i))?.[0] ?? text.slice(i);
    } else if (text[i] === "'") {
      // A char literal ('x', '\n', '\u{1F600}'); a lifetime ('a) has no closing quote.
      m = /^'(?:[^'\\\n]|\\[^u]|\\u\{[0-9a-fA-F]+\})'/.exec(text.slice(i, i + 12))?.[0];
    }
    if (m) {
      out += blank(m);
      i += m.length;
    } else {
      out += text[i++];
    }
  }
  const testAt = out.search(/#\[cfg\(test\)\]\s*mod\s/);
  return testAt >= 0 ? out.slice(0, testAt) : out;
}

// Module paths: src/a/b.rs and src/a/b/mod.rs are a::b; a `#[path = "f.rs"] mod x;` in a file
// makes f.rs the module x inside that file's module.
const rel = (file) => relative(root, file).split(sep);
const modPath = new Map(
  files.map((f) => {
    const r = rel(f);
    const last = r.at(-1);
    return [f, last === 'mod.rs' || last === 'lib.rs' ? r.slice(0, -1) : [...r.slice(0, -1), last.slice(0, -3)]];
  }),
);
const texts = new Map(files.map((f) => [f, code(readFileSync(f, 'utf8'))]));
for (const f of files) {
  for (const m of readFileSync(f, 'utf8').matchAll(/#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/g)) {
    const target = resolve(dirname(f), m[1]);
    if (modPath.has(target)) modPath.set(target, [...modPath.get(f), m[2]]);
  }
}
const modules = new Set();
for (const p of modPath.values()) for (let k = 0; k <= p.length; k++) modules.add(p.slice(0, k).join('::'));

// `use a::{b, c::{self, D as E}}` -> [a::b, a::c, a::c::D].
function expandUse(tree) {
  const tokens = tree.match(/::|[{},*]|\w+/g) ?? [];
  let i = 0;
  function list(prefix) {
    const out = [];
    while (i < tokens.length && tokens[i] !== '}') {
      out.push(...item(prefix));
      if (tokens[i] === ',') i++;
    }
    return out;
  }
  function item(prefix) {
    const path = [...prefix];
    while (i < tokens.length) {
      const t = tokens[i++];
      if (t === '{') {
        const inner = list(path);
        i++; // '}'
        return inner;
      }
      if (t !== 'self' && t !== '*' && t !== '::') path.push(t);
      if (tokens[i] === '::') i++;
      else if (t !== '::') {
        if (tokens[i] === 'as') i += 2;
        return [path];
      }
    }
    return [path];
  }
  return list([]);
}

// Every path of `file` that names a module of the crate: [absolute module path segments, offset].
function references(file) {
  const text = texts.get(file);
  const here = modPath.get(file);
  const children = new Set([...text.matchAll(/\bmod\s+(\w+)\s*[;{]/g)].map((m) => m[1]));
  // Inline `mod x { ... }` blocks: a path inside one is relative to x.
  const inline = [];
  for (const m of text.matchAll(/\bmod\s+(\w+)\s*\{/g)) {
    let depth = 0;
    let j = m.index + m[0].length - 1;
    for (; j < text.length; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}' && --depth === 0) break;
    }
    inline.push({ name: m[1], from: m.index + m[0].length, to: j });
  }
  const moduleAt = (at) => [
    ...here,
    ...inline.filter((b) => b.from <= at && at < b.to).sort((a, b) => a.from - b.from).map((b) => b.name),
  ];
  const absolute = (segs, at) => {
    const base = moduleAt(at);
    if (segs[0] === 'crate') return segs.slice(1);
    if (segs[0] === 'self') return [...base, ...segs.slice(1)];
    if (segs[0] === 'super') {
      const up = segs.findIndex((s) => s !== 'super');
      const n = up < 0 ? segs.length : up;
      return [...base.slice(0, base.length - n), ...segs.slice(n)];
    }
    if (children.has(segs[0])) return [...base, ...segs];
    return null;
  };
  const refs = [];
  for (const m of text.matchAll(/\buse\s+([^;]+);/g)) {
    for (const segs of expandUse(m[1])) {
      const abs = absolute(segs, m.index);
      if (abs) refs.push([abs, m.index, segs]);
    }
  }
  for (const m of text.matchAll(/(?<![\w:])[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+/g)) {
    const segs = m[0].split('::');
    const abs = absolute(segs, m.index);
    if (abs) refs.push([abs, m.index, segs]);
  }
  const lineOf = (at) => text.slice(0, at).split('\n').length;
  return refs.map(([abs, at, segs]) => ({ abs, line: lineOf(at), segs }));
}

const refs = new Map(files.map((f) => [f, references(f)]));
const problems = [];

// Across top-level modules: the layers.
for (const file of files) {
  const r = rel(file);
  const top = r[0].replace(/\.rs$/, '');
  if (top === 'lib') continue; // the crate root declares every module
  if (!rank.has(top)) {
    problems.push(`src/${r.join('/')}: module '${top}' is in no layer (add it to scripts/check-layers.mjs and the README)`);
    continue;
  }
  for (const { abs, line, segs } of refs.get(file)) {
    // `super::` chains from src/<top>/<a>/<b>.rs climb one module per `super`; past the top-level
    // module they name a sibling of it.
    const depth = segs.filter((s) => s === 'super').length;
    const inMod = modPath.get(file).length - 1; // nesting below the top-level module
    if (depth >= 2 && depth <= inMod) problems.push(`src/${r.join('/')}:${line}: use a crate:: path instead of ${'super::'.repeat(depth)}`);
    check(abs[0], line);
  }
  function check(target, line) {
    if (!rank.has(target) || target === top) return;
    const [from, to] = [rank.get(top), rank.get(target)];
    if (to > from || (to === from && target !== top)) {
      problems.push(`src/${r.join('/')}:${line}: '${top}' (layer ${from}) refers to '${target}' (layer ${to})`);
    }
  }
}

// Inside each module below the crate root, the modules whose files sit in its directory (x.rs, and
// what x.rs brings in with `#[path]`) must refer to each other without a circle. Its own mod.rs
// (it declares and re-exports them, they share its items) and child modules with a directory of
// their own (checked inside it) are not nodes.
const graphs = new Map(); // module -> from -> to -> where
const isDir = (mod, child) => existsSync(join(root, ...mod, child));
for (const file of files) {
  const path = modPath.get(file);
  for (const { abs, line } of refs.get(file)) {
    for (let k = 1; k < path.length; k++) {
      const mod = path.slice(0, k);
      if (abs.length <= k || abs.slice(0, k).join('::') !== mod.join('::')) continue;
      const [from, to] = [path[k], abs[k]];
      if (from === to || !modules.has([...mod, to].join('::')) || isDir(mod, from) || isDir(mod, to)) continue;
      const key = mod.join('::');
      if (!graphs.has(key)) graphs.set(key, { mod, edges: new Map() });
      const edges = graphs.get(key).edges;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `src/${rel(file).join('/')}:${line}`);
    }
  }
}
for (const { mod, edges } of graphs.values()) {
  // From each file the shortest way back to it (breadth first); each circle said once.
  const seen = new Set();
  for (const start of [...edges.keys()].sort()) {
    const back = new Map([[start, undefined]]);
    const queue = [start];
    let last; // the node whose edge closes the circle
    while (queue.length && last === undefined) {
      const n = queue.shift();
      for (const next of [...(edges.get(n)?.keys() ?? [])].sort()) {
        if (next === start) {
          last = n;
          break;
        }
        if (!back.has(next)) (back.set(next, n), queue.push(next));
      }
    }
    if (last === undefined) continue;
    const cycle = [start];
    for (let n = last; n !== start; n = back.get(n)) cycle.splice(1, 0, n);
    const sig = [...cycle].sort().join(' ');
    if (seen.has(sig)) continue;
    seen.add(sig);
    const hops = cycle.map((n, i) => [n, cycle[(i + 1) % cycle.length]]);
    problems.push(
      `src/${mod.join('/')}/: import cycle ${[...cycle, start].map((n) => `${n}.rs`).join(' -> ')} ` +
        `(${hops.map(([a, b]) => `${edges.get(a).get(b)} refers to ${b}.rs`).join(', ')})`,
    );
  }
}

if (problems.length) {
  const unique = [...new Set(problems)];
  console.error(`layering: ${unique.length} problem(s)\n${unique.join('\n')}`);
  process.exit(1);
}
console.log(
  `layering: ${files.length} files, every reference points down (${LAYERS.map((l) => l.join('/')).join(' < ')}), ` +
    'no import cycle between the files of a module',
);
