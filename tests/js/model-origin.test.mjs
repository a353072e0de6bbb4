// What a model file can make the loader fetch: weight shards resolve against the model.json's URL
// as TF.js's http handler resolves them (its folder, then the path, then its query string), and a
// shard path that is an absolute URL or leaves the model's origin is refused before anything is
// fetched. A model served over HTTP must never make Node read a local file.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { api, fixtureMissingOps, fixtures, loadFixture, rejectsCode } from './helpers.mjs';

const { EagerContext } = api;
const skip = fixtureMissingOps('mlp') ?? false;

let server;
let base;
/** Every path the server was asked for, with its query string. */
const requested = [];
/** model.json bodies by name: /<name>/model.json serves the mlp model with these manifest paths. */
const manifests = new Map();
before(async () => {
  const { modelJson, shards } = loadFixture('mlp');
  server = createServer((req, res) => {
    requested.push(req.url);
    const url = new URL(req.url, 'http://x');
    const m = url.pathname.match(/^\/([^/]+)\/(.+)$/);
    if (m && m[2] === 'model.json' && manifests.has(m[1])) {
      const doc = JSON.parse(modelJson);
      doc.weightsManifest[0].paths = manifests.get(m[1]);
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    }
    if (m && m[2] === 'group1-shard1of1.bin') return res.writeHead(200).end(shards[0]);
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((r) => server.close(r)));

test('a model over HTTP cannot name a local file or another origin as a shard', { skip }, async () => {
  const ctx = new EagerContext();
  const m0 = ctx.memory();
  const hostile = {
    'file-url': ['file:///etc/passwd'],
    'file-host': ['file://localhost/etc/hostname'],
    'other-origin': ['http://127.0.0.1:9/group1-shard1of1.bin'],
    'other-scheme': ['data:application/octet-stream;base64,AAAA'],
    'protocol-relative-js': ['javascript:alert(1)'],
  };
  for (const [name, paths] of Object.entries(hostile)) manifests.set(name, paths);
  for (const name of Object.keys(hostile)) {
    requested.length = 0;
    await rejectsCode(ctx.loadGraphModel(`${base}/${name}/model.json`), 'InvalidArgument', /absolute URL.*shard paths are relative to the model\.json/);
    // Only the model.json was fetched: the hostile path was refused before any shard request.
    assert.deepEqual(requested, [`/${name}/model.json`]);
  }
  // A custom fetch is not handed the hostile URL either.
  const seen = [];
  const fetchFn = (u, init) => (seen.push(u), fetch(u, init));
  await rejectsCode(ctx.loadGraphModel(`${base}/file-url/model.json`, { fetch: fetchFn }), 'InvalidArgument');
  assert.deepEqual(seen, [`${base}/file-url/model.json`]);
  assert.equal(ctx.memory().heapBytes, m0.heapBytes);
  ctx.dispose();
});

test('shard paths resolve as TF.js resolves them: the folder, the path, the query string', { skip }, async () => {
  const ctx = new EagerContext();
  manifests.set('plain', ['group1-shard1of1.bin']);
  manifests.set('dotted', ['../plain/group1-shard1of1.bin']);
  requested.length = 0;
  (await ctx.loadGraphModel(`${base}/plain/model.json?token=abc`)).dispose();
  assert.deepEqual(requested, ['/plain/model.json?token=abc', '/plain/group1-shard1of1.bin?token=abc']);
  // '..' stays on the model's origin, as with TF.js (fetch normalizes it the same way).
  requested.length = 0;
  (await ctx.loadGraphModel(`${base}/dotted/model.json`)).dispose();
  assert.deepEqual(requested, ['/dotted/model.json', '/plain/group1-shard1of1.bin']);
  ctx.dispose();
});

test('a model given as a file path or file: URL reads its shards from disk', { skip }, async () => {
  const ctx = new EagerContext();
  const path = join(fixtures, 'mlp', 'model.json');
  (await ctx.loadGraphModel(path)).dispose();
  (await ctx.loadGraphModel(pathToFileURL(path))).dispose();
  (await ctx.loadGraphModel(pathToFileURL(path).href)).dispose();
  ctx.dispose();
});
