// ctx.fromPixels from every browser source type (issue 17), run in headless Chromium by
// scripts/chromium-check.mjs: ImageData, HTMLCanvasElement, OffscreenCanvas, ImageBitmap,
// HTMLImageElement (a PNG of the canvas), VideoFrame and HTMLVideoElement (the canvas's stream).
// Each result is compared with the pixels drawn; returns [{ name, ok, error? }].

const W = 7;
const H = 5;

/** Opaque pixels (alpha 255: drawing does not premultiply them away), each pixel distinct. */
function pattern() {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let p = 0; p < W * H; p++) data.set([(p * 37) % 256, (p * 11 + 50) % 256, 255 - p * 3, 255], p * 4);
  return data;
}

/** The first `c` channels of each RGBA pixel of `rgba`. */
function channels(rgba, c) {
  const out = [];
  for (let p = 0; p < rgba.length / 4; p++) for (let k = 0; k < c; k++) out.push(rgba[p * 4 + k]);
  return out;
}

function same(got, want, tol, what) {
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} values, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (Math.abs(got[i] - want[i]) > tol) throw new Error(`${what}: value ${i} is ${got[i]}, expected ${want[i]}`);
  }
}

export async function checkFromPixels(api) {
  const { EagerContext, EagerError } = api;
  const drawn = pattern();
  const canvas = document.createElement('canvas');
  canvas.width = W;
  canvas.height = H;
  canvas.getContext('2d').putImageData(new ImageData(drawn, W, H), 0, 0);
  const offscreen = new OffscreenCanvas(W, H);
  offscreen.getContext('2d').putImageData(new ImageData(drawn, W, H), 0, 0);
  const img = new Image();
  img.src = canvas.toDataURL('image/png');
  await img.decode();

  // ImageData with a non-opaque alpha channel: its bytes are taken as they are.
  const translucent = drawn.map((v, i) => (i % 4 === 3 ? i % 256 : v));
  const sources = [
    ['ImageData', () => new ImageData(translucent, W, H), translucent],
    ['HTMLCanvasElement', () => canvas, drawn],
    ['OffscreenCanvas', () => offscreen, drawn],
    ['ImageBitmap', () => createImageBitmap(canvas), drawn],
    ['HTMLImageElement (PNG)', () => img, drawn],
    ['VideoFrame', () => new VideoFrame(canvas, { timestamp: 0 }), drawn],
  ];
  const results = [];
  const ctx = new EagerContext();
  const run = async (name, fn) => {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: (e && e.stack) || String(e) });
    }
  };
  for (const [name, make, want] of sources) {
    await run(`fromPixels(${name})`, async () => {
      const source = await make();
      try {
        for (const c of [1, 3, 4]) {
          for (const dtype of ['int32', 'uint8']) {
            const t = ctx.fromPixels(source, c, { dtype });
            if (t.dtype !== dtype || String(t.shape) !== `${H},${W},${c}`) throw new Error(`${t.dtype} [${t.shape}]`);
            same(t.dataSync(), channels(want, c), 0, `${c} channels, ${dtype}`);
            t.dispose();
          }
        }
      } finally {
        source.close?.();
      }
    });
  }

  // A video playing the canvas's stream: compared with the same frame drawn by the page itself
  // (a stream frame may go through YUV, so the pattern itself only within a tolerance).
  await run('fromPixels(HTMLVideoElement)', async () => {
    const live = document.createElement('canvas');
    live.width = W;
    live.height = H;
    const g = live.getContext('2d');
    const stream = live.captureStream(0);
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = stream;
    const notReady = (() => {
      try {
        ctx.fromPixels(video);
        return false;
      } catch (e) {
        return e instanceof EagerError && e.code === 'InvalidArgument' && /no frame yet/.test(e.message);
      }
    })();
    if (!notReady) throw new Error('a video without a frame was not refused');
    const loaded = new Promise((resolve, reject) => {
      video.addEventListener('loadeddata', resolve, { once: true });
      setTimeout(() => reject(new Error('the video never loaded')), 10000);
    });
    video.play().catch(() => {}); // settles once a frame came: not awaited
    g.putImageData(new ImageData(drawn, W, H), 0, 0);
    stream.getVideoTracks()[0].requestFrame();
    await loaded;
    const t = ctx.fromPixels(video, 4);
    const check = document.createElement('canvas');
    check.width = W;
    check.height = H;
    const cg = check.getContext('2d', { willReadFrequently: true });
    cg.drawImage(video, 0, 0, W, H);
    const frame = cg.getImageData(0, 0, W, H).data;
    if (String(t.shape) !== `${H},${W},4` || t.dtype !== 'int32') throw new Error(`${t.dtype} [${t.shape}]`);
    const got = t.dataSync();
    same(got, frame, 0, 'video frame vs drawImage of it');
    same(got, drawn, 24, 'video frame vs the pattern');
    t.dispose();
    video.pause();
    stream.getTracks().forEach((track) => track.stop());
  });

  await run('fromPixels: bad sources are InvalidArgument, nothing left behind', async () => {
    const bad = [
      document.createElement('div'),
      new Image(), // not loaded: 0x0
      { data: new Uint8Array(3), width: 2, height: 2 },
    ];
    for (const source of bad) {
      let code = null;
      try {
        ctx.fromPixels(source).dispose();
      } catch (e) {
        code = e instanceof EagerError ? e.code : String(e);
      }
      if (code !== 'InvalidArgument') throw new Error(`${source}: ${code}`);
    }
    for (const c of [0, 5]) {
      let code = null;
      try {
        ctx.fromPixels(canvas, c).dispose();
      } catch (e) {
        code = e instanceof EagerError ? e.code : String(e);
      }
      if (code !== 'InvalidArgument') throw new Error(`numChannels ${c}: ${code}`);
    }
    if (ctx.memory().numTensors !== 0) throw new Error(`${ctx.memory().numTensors} tensors left`);
  });
  ctx.dispose();
  return results;
}
