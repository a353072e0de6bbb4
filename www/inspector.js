// The kernel-cache inspector of a lane card: the ops in the cache (sorted by entries or bytes) with
// hit rate, distinct keys and the attrs that take a new value on almost every call; a click on an
// op shows its key composition (every attr: how many values, examples). Rebuilt only when what it
// shows changed, so it follows the charts' redraws without redoing the DOM each time.

import { formatBytes, formatCount } from './plots.js';

export function inspectorHtml() {
  return `
    <details class="inspector" open>
      <summary>Kernel cache inspector</summary>
      <label class="inspector-sort">sort by
        <select><option value="entries">entries</option><option value="bytes">bytes</option></select>
      </label>
      <ol class="inspector-ops"></ol>
      <div class="key-composition" hidden></div>
      <p class="inspector-foot"></p>
    </details>`;
}

/** Wires the sort control and op selection of a card built from `inspectorHtml`. */
export function initInspector(card, rerender) {
  const box = card.querySelector('.inspector');
  box.dataset.sort = 'entries';
  box.querySelector('.inspector-sort select').addEventListener('change', (e) => {
    box.dataset.sort = e.target.value;
    rerender();
  });
  box.querySelector('.inspector-ops').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-op]');
    if (button === null) return;
    box.dataset.selected = box.dataset.selected === button.dataset.op ? '' : button.dataset.op;
    rerender();
  });
}

const approx = (n, exact) => `${exact ? '' : '~'}${formatCount(n)}`;

function hitRate(o) {
  if (o.hits + o.misses === 0) return o.bypassed > 0 ? `excluded (${formatCount(o.bypassed)} calls)` : 'no lookups';
  return `hits ${((100 * o.hits) / (o.hits + o.misses)).toFixed(1)}%`;
}

function span(cls, text) {
  const el = document.createElement('span');
  el.className = cls;
  el.textContent = text;
  return el;
}

/** Renders `ops` (from `inspectorStats`, or null before the first batch) into the card. */
export function renderInspector(card, ops, attrBytes) {
  const box = card.querySelector('.inspector');
  const sort = box.dataset.sort;
  const selected = box.dataset.selected ?? '';
  const rows = (ops ?? []).slice();
  rows.sort((a, b) => b[sort] - a[sort] || b.hits + b.misses + b.bypassed - (a.hits + a.misses + a.bypassed) || (a.op < b.op ? -1 : 1));
  const key = JSON.stringify([sort, selected, rows]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;

  // A list, not a table: it wraps to any card width. Each op keeps its element across renders (moved
  // into order, its text updated), so that a click is not lost to a render between press and release.
  const list = box.querySelector('.inspector-ops');
  const items = new Map([...list.children].map((li) => [li.dataset.op, li]));
  for (const o of rows) {
    let li = items.get(o.op);
    if (li === undefined) {
      li = document.createElement('li');
      li.dataset.op = o.op;
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.op = o.op;
      button.textContent = o.op;
      li.append(button, span('inspector-figs', ''), span('inspector-varying', ''));
    }
    items.delete(o.op);
    const varying = o.attrs.filter((a) => a.perCall).map((a) => a.name);
    li.dataset.varying = varying.join(' ');
    li.classList.toggle('selected', o.op === selected);
    li.querySelector('button').setAttribute('aria-expanded', String(o.op === selected));
    li.querySelector('.inspector-figs').textContent =
      `${formatCount(o.entries)} ${o.entries === 1 ? 'entry' : 'entries'} · ${formatBytes(o.bytes)} · ${hitRate(o)} · ` +
      `${approx(o.keys, o.keysExact)} ${o.keys === 1 && o.keysExact ? 'key' : 'keys'}`;
    const note = li.querySelector('.inspector-varying');
    note.textContent = varying.length > 0 ? `new on every call: ${varying.join(', ')}` : '';
    list.append(li); // in order: appending an element already in the list moves it
  }
  for (const li of items.values()) li.remove();

  const comp = box.querySelector('.key-composition');
  const op = rows.find((o) => o.op === selected);
  comp.hidden = op === undefined;
  comp.textContent = '';
  comp.dataset.op = op?.op ?? '';
  if (op !== undefined) {
    const h = document.createElement('h3');
    h.textContent = `${op.op}: key composition over ${approx(op.keys, op.keysExact)} distinct keys`;
    const ul = document.createElement('ul');
    for (const a of op.attrs) {
      const li = document.createElement('li');
      li.dataset.attr = a.name;
      li.dataset.varies = a.perCall ? 'per-call' : a.values > 1 ? 'some' : 'constant';
      const name = document.createElement('code');
      name.textContent = a.name;
      const what = a.perCall
        ? `${approx(a.values, a.exact)} values, new on almost every call`
        : a.values > 1
          ? `${approx(a.values, a.exact)} values`
          : 'constant';
      li.append(name, `: ${what}; e.g. ${a.examples.join(', ')}`);
      ul.append(li);
    }
    if (op.attrs.length === 0) ul.append(Object.assign(document.createElement('li'), { textContent: 'no attrs' }));
    comp.append(h, ul);
  }
  box.querySelector('.inspector-foot').textContent =
    ops === null ? '' : `${rows.length} ops; attr tracking: ${formatBytes(attrBytes)} (bounded, beside the cache bytes)`;
}
