// The shipped types (dist/index.d.ts) compile under strict tsc, without skipLibCheck, in the three
// settings users have: a page (lib dom), a module worker (lib webworker, no DOM) and Node (ES2022
// with @types/node, no DOM). Each also compiles a small use of the platform's own pixel sources.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from './helpers.mjs';

const tsc = join(root, 'node_modules/.bin/tsc');

const settings = {
  page: {
    lib: ['es2022', 'dom'],
    types: [],
    use: `const img = new Image();
const t = ctx.fromPixels(img);
const canvas: PixelSource = document.createElement('canvas');
await init(new WebAssembly.Module(new Uint8Array(0)));
await init(fetch('x.wasm'));`,
  },
  worker: {
    lib: ['es2022', 'webworker'],
    types: [],
    use: `declare const bitmap: ImageBitmap;
const t = ctx.fromPixels(bitmap);
const offscreen: PixelSource = new OffscreenCanvas(1, 1);`,
  },
  node: {
    lib: ['es2022'],
    types: ['node'],
    use: `const t = ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 });
// @ts-expect-error: no DOM classes in Node, so a string is not a pixel source
ctx.fromPixels('img.png');
await init(new Uint8Array(0));`,
  },
};

for (const [name, s] of Object.entries(settings)) {
  test(`index.d.ts compiles under strict tsc for a ${name} (lib ${s.lib.join(', ')}${s.types.length ? ', @types/node' : ''})`, { skip: !existsSync(tsc) && 'no tsc' }, () => {
    const dir = mkdtempSync(join(tmpdir(), `types-${name}-`));
    try {
      cpSync(join(root, 'dist/index.d.ts'), join(dir, 'index.d.ts'));
      writeFileSync(
        join(dir, 'use.ts'),
        `import { init, dispose, keep, EagerContext, type PixelSource, type Tensor } from './index.js';
await init();
const ctx = new EagerContext();
${s.use}
const kept: Tensor<'int32'> = keep(t);
dispose([kept, { t }]);
ctx.dispose();
export {};
`,
      );
      const compilerOptions = {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'es2022',
        moduleResolution: 'bundler',
        lib: s.lib,
        types: s.types,
        typeRoots: [join(root, 'node_modules/@types')],
      };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.d.ts', 'use.ts'] }));
      try {
        execFileSync(tsc, ['-p', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (e) {
        assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
