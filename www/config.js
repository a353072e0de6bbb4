// Where the page finds the eager-wasm package and the sample models. These are the paths when the
// repository root is served (node scripts/serve.mjs); scripts/build-site.mjs rewrites this file
// for the production build in site/.
export const PKG_URL = new URL('../dist/index.js', import.meta.url).href;
export const MODELS_URL = new URL('../tests/fixtures/models/', import.meta.url).href;
