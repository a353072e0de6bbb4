// The splitter (scripts/cold-split, a Rust tool of its own) and what the build and the profile
// script share about it.

import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const crate = join(root, 'scripts/cold-split');

/** The splitter binary, built by coldSplitBinary(). */
export const COLD_SPLIT = join(crate, 'target/release/cold-split');

/** The names of the functions the primary module keeps (scripts/cold-profile.mjs writes it). */
export const HOT_LIST = join(crate, 'hot.txt');
/** What the layers builds' primary keeps beyond HOT_LIST (the Keras models' code). */
export const HOT_LIST_LAYERS = join(crate, 'hot-layers.txt');

/** The hot lists a build splits by. */
export const hotListsFor = (layers) => (layers ? [HOT_LIST, HOT_LIST_LAYERS] : [HOT_LIST]);

/** Builds the splitter with the stable toolchain for the host (cargo makes it a no-op when fresh). */
export function coldSplitBinary() {
  execFileSync('cargo', ['build', '--release', '--quiet', '--manifest-path', join(crate, 'Cargo.toml')], {
    stdio: 'inherit',
  });
  return COLD_SPLIT;
}

/** The four builds' output dirs and file names (as scripts/build.mjs makes them). */
export const SPLIT_VARIANTS = [false, true].flatMap((layers) =>
  [false, true].map((relaxed) => {
    const tag = `${layers ? '_layers' : ''}${relaxed ? '_relaxed' : ''}`;
    return {
      name: `${layers ? 'layers, ' : 'graph, '}${relaxed ? 'relaxed-simd' : 'simd'}`,
      tag,
      layers,
      relaxed,
      out: `pkg/v${tag}`,
      wasm: `eager_wasm${tag}_bg.wasm`,
      cold: `eager_wasm${tag}_cold.wasm`,
    };
  }),
);
