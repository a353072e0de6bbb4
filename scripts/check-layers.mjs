// Fails when a module of src/ refers to a module of a higher layer (the layering the README's
// Layout section documents). Reads every `crate::<module>` path outside comments and test modules,
// in `use` lines and inline paths alike, and `super::` chains that climb out of a top-level module.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// Lowest first; a module may refer to its own layer's module and to lower layers only. Modules on
// one line are siblings that must not refer to each other either (each is a leaf of its layer).
const LAYERS = [
  ['status', 'memory', 'hash', 'handles'],
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

const root = new URL('../src/', import.meta.url).pathname;
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.rs')) files.push(p);
  }
})(root);

const problems = [];
for (const file of files) {
  const rel = relative(root, file).split(sep);
  const top = rel[0].replace(/\.rs$/, '');
  if (top === 'lib') continue; // the crate root declares every module
  if (!rank.has(top)) {
    problems.push(`src/${rel.join('/')}: module '${top}' is in no layer (add it to scripts/check-layers.mjs and the README)`);
    continue;
  }
  let text = readFileSync(file, 'utf8');
  // Test modules may use anything (they exercise a layer from above).
  const testAt = text.search(/#\[cfg\(test\)\]\s*mod\s/);
  if (testAt >= 0) text = text.slice(0, testAt);
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const m of line.matchAll(/\bcrate::([a-z_]+)/g)) check(m[1], i);
    // `super::` chains from src/<top>/<a>/<b>.rs climb one module per `super`; past the top-level
    // module they name a sibling of it.
    for (const m of line.matchAll(/\b((?:super::)+)([a-z_]+)/g)) {
      const depth = m[1].length / 'super::'.length;
      const inMod = rel.length - 1 - (rel.at(-1) === 'mod.rs' ? 1 : 0); // nesting below the crate root
      if (depth >= inMod + 1) check(m[2], i);
      else if (depth >= 2) problems.push(`src/${rel.join('/')}:${i + 1}: use a crate:: path instead of ${m[1]}`);
    }
  });
  function check(target, i) {
    if (!rank.has(target) || target === top) return;
    const [from, to] = [rank.get(top), rank.get(target)];
    if (to > from || (to === from && target !== top)) {
      problems.push(`src/${rel.join('/')}:${i + 1}: '${top}' (layer ${from}) refers to '${target}' (layer ${to})`);
    }
  }
}

if (problems.length) {
  console.error(`layering: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`layering: ${files.length} files, every reference points down (${LAYERS.map((l) => l.join('/')).join(' < ')})`);
