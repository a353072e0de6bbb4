// Where the page finds the eager-wasm package and the sample models. These are the paths when the
// repository root is served (node scripts/serve.mjs); scripts/build-site.mjs rewrites this file
// for the production build in site/. gen/tfjs-lane.js is the TF.js lane's bundle (both layouts).
export const PKG_URL = new URL('../dist/index.js', import.meta.url).href;
export const MODELS_URL = new URL('../tests/fixtures/models/', import.meta.url).href;
export const TFJS_URL = new URL('./gen/tfjs-lane.js', import.meta.url).href;
