// scripts/check-layers.mjs (the layering stage of scripts/test.sh) on the crate and on small
// synthetic src/ trees: it passes on the crate, and fails naming the files and lines of every import
// cycle between the files of a module and of every reference to a higher layer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/check-layers.mjs', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'check-layers-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

let trees = 0;
/** Writes `files` ({ 'eager/a.rs': 'text' }) as a src/ tree and runs the checker on it. */
function check(files) {
  const src = join(tmp, `src${trees++}`);
  for (const [path, text] of Object.entries({ 'lib.rs': '', ...files })) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return run(src);
}

function run(...args) {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('the crate passes: every reference points down, no import cycle inside a module', () => {
  const r = run();
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /no import cycle/);
});

test('two files of a module that use each other fail, naming both edges', () => {
  const r = check({
    'eager/mod.rs': 'mod a;\nmod b;\n',
    'eager/a.rs': 'use super::b::B;\npub struct A;\n',
    'eager/b.rs': '//! Docs.\n\nuse super::a::A;\npub struct B;\n',
  });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /src\/eager\/: import cycle a\.rs -> b\.rs -> a\.rs/);
  assert.match(r.out, /src\/eager\/a\.rs:1 refers to b\.rs/);
  assert.match(r.out, /src\/eager\/b\.rs:3 refers to a\.rs/);
});

test('a longer loop through crate:: paths, use groups, aliases and inline paths fails', () => {
  const r = check({
    'model/mod.rs': 'mod layers;\n',
    'model/layers/mod.rs': 'mod graph;\nmod layer;\nmod shape;\n',
    'model/layers/graph.rs': 'use crate::model::layers::{\n    layer::{self, Kind},\n};\n',
    'model/layers/layer.rs': 'use crate::model::layers::shape as sh;\npub enum Kind {}\n',
    'model/layers/shape.rs': 'pub fn f() -> usize {\n    super::graph::size()\n}\n',
  });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /src\/model\/layers\/: import cycle graph\.rs -> layer\.rs -> shape\.rs -> graph\.rs/);
  assert.match(r.out, /model\/layers\/shape\.rs:2 refers to graph\.rs/);
  assert.equal(r.out.match(/import cycle/g).length, 1, r.out);
});

test('one-way references pass: shared items in a lower file or in mod.rs, mentions in comments, strings and tests', () => {
  const r = check({
    'eager/mod.rs': 'mod low;\nmod high;\nmod other;\npub use high::H;\npub struct Shared;\n',
    'eager/low.rs': [
      '// super::high is mentioned here only',
      'use super::Shared;',
      'pub const S: &str = "super::high::H";',
      "pub const C: char = '\"';",
      'pub struct L;',
      '#[cfg(test)]',
      'mod tests {',
      '    use super::super::high::H;',
      '}',
    ].join('\n'),
    'eager/high.rs': 'use super::low::L;\nuse super::{other, Shared};\npub struct H(L);\n',
    'eager/other.rs': '/* use super::high; */\npub fn f() {}\n',
  });
  assert.equal(r.code, 0, r.out);
});

test('a module with a directory of its own is checked inside it, a #[path] file as part of its module', () => {
  const loop = check({
    'model/mod.rs': 'mod loader;\nmod layers;\n',
    'model/loader.rs': '#[path = "fuse.rs"]\nmod fuse;\n',
    'model/fuse.rs': 'use crate::model::weights::W;\n',
    'model/weights.rs': 'use super::loader::load;\n',
    'model/layers/mod.rs': 'mod a;\nmod b;\n',
    'model/layers/a.rs': 'use super::b;\n',
    'model/layers/b.rs': 'use super::a;\n',
  });
  assert.equal(loop.code, 1, loop.out);
  assert.match(loop.out, /src\/model\/: import cycle loader\.rs -> weights\.rs -> loader\.rs \(src\/model\/fuse\.rs:1 refers/);
  assert.match(loop.out, /src\/model\/layers\/: import cycle a\.rs -> b\.rs -> a\.rs/);
});

test('references to a higher layer still fail', () => {
  const r = check({
    'tensor/mod.rs': 'mod shape;\n',
    'tensor/shape.rs': 'pub fn f() {\n    crate::eager::run();\n}\n',
    'eager/mod.rs': 'mod a;\n',
    'eager/a.rs': 'use super::super::model::X;\n',
  });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /src\/tensor\/shape\.rs:2: 'tensor' \(layer 1\) refers to 'eager'/);
  assert.match(r.out, /src\/eager\/a\.rs:1: 'eager' \(layer 6\) refers to 'model'/);
});
