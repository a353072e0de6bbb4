// Imported first by the layers suites: init() loads one build per process and the first call
// decides, so this one must come before helpers.mjs's plain init().
import * as api from '../../dist/index.js';

await api.init({ layers: true });
