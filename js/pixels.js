// ctx.fromPixels: an image source as an int32 (or uint8) [height, width, channels] tensor, as TF.js's
// tf.browser.fromPixels. The RGBA bytes go into wasm as they are (one copy: getImageData's array, or
// the caller's); channel selection and the int32 cast run there.

import { EagerError } from './errors.js';
import { describe, invalid, messageOf, typedArrayKind } from './snapshot.js';

const has = (name) => typeof globalThis[name] === 'function';
const is = (v, name) => has(name) && v instanceof globalThis[name];

/** One canvas, reused: drawing sources whose bytes JS cannot read otherwise. */
let canvas2d = null;

function canvasContext(width, height) {
  if (canvas2d === null) {
    const canvas = has('OffscreenCanvas')
      ? new OffscreenCanvas(width, height)
      : typeof document !== 'undefined'
        ? document.createElement('canvas')
        : null;
    if (canvas === null) throw invalid('fromPixels: drawing an image needs OffscreenCanvas or a document');
    canvas2d = canvas.getContext('2d', { willReadFrequently: true });
  }
  const c = canvas2d.canvas;
  if (c.width !== width || c.height !== height) {
    c.width = width;
    c.height = height;
  }
  return canvas2d;
}

/**
 * `{ bytes, width, height, channels }` of `source`: the bytes of a raw `{ data, width, height }` or
 * ImageData as they are, else the RGBA bytes of the source drawn on a canvas.
 */
function pixelsOf(source) {
  if (source === null || typeof source !== 'object') {
    throw invalid(`fromPixels: expected an image source, got ${describe(source)}`);
  }
  const video = is(source, 'HTMLVideoElement');
  const frame = is(source, 'VideoFrame');
  const drawable =
    video ||
    frame ||
    is(source, 'HTMLImageElement') ||
    is(source, 'HTMLCanvasElement') ||
    is(source, 'OffscreenCanvas') ||
    is(source, 'ImageBitmap') ||
    is(source, 'SVGImageElement');
  if (!drawable) {
    // ImageData, or raw { data, width, height } (Node): data holds 1 to 4 bytes per pixel.
    const { data, width, height } = source;
    const kind = typedArrayKind(data);
    if (kind !== 'Uint8Array' && kind !== 'Uint8ClampedArray') {
      throw invalid(
        'fromPixels: expected ImageData, an image, video, canvas, ImageBitmap, VideoFrame or ' +
          `{ data: Uint8Array | Uint8ClampedArray, width, height }, got ${describe(source)}`,
      );
    }
    const pixels = size(width, height);
    const channels = data.length / pixels;
    if (!(channels >= 1 && channels <= 4 && Number.isInteger(channels))) {
      throw invalid(`fromPixels: data holds ${data.length} bytes, not 1 to 4 per pixel of ${width}x${height}`);
    }
    return { bytes: data, width, height, channels };
  }
  if (video && source.readyState < 2) {
    throw invalid('fromPixels: the video has no frame yet (wait for its loadeddata event)');
  }
  const [width, height] = video
    ? [source.videoWidth, source.videoHeight]
    : frame
      ? [source.displayWidth, source.displayHeight]
      : [source.width, source.height];
  size(width, height);
  const g = canvasContext(width, height);
  g.drawImage(source, 0, 0, width, height);
  return { bytes: g.getImageData(0, 0, width, height).data, width, height, channels: 4 };
}

/** width * height, both positive integers (an image not loaded yet has 0). */
function size(width, height) {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw invalid(`fromPixels: the image is ${width}x${height} (not loaded yet?)`);
  }
  return width * height;
}

/**
 * `ctx.fromPixels(source, numChannels = 3, { dtype })`: the first `numChannels` channels (1 to 4)
 * of every pixel, int32 (as TF.js) or uint8.
 */
export function fromPixels(ctx, source, numChannels = 3, options) {
  let px;
  let dtype;
  try {
    dtype = options?.dtype ?? 'int32';
    if (dtype !== 'int32' && dtype !== 'uint8') throw invalid(`fromPixels: dtype must be 'int32' or 'uint8', got ${typeof dtype === 'string' ? `'${dtype}'` : describe(dtype)}`);
    if (!(Number.isInteger(numChannels) && numChannels >= 1 && numChannels <= 4)) {
      throw invalid(`fromPixels: numChannels must be 1, 2, 3 or 4, got ${describe(numChannels)}`);
    }
    px = pixelsOf(source);
    if (numChannels > px.channels) {
      throw invalid(`fromPixels: ${numChannels} channels asked of data with ${px.channels} per pixel`);
    }
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`fromPixels: the source could not be read: ${messageOf(e)}`, e);
  }
  const { bytes, width, height, channels } = px;
  const made = [];
  try {
    let t = ctx.tensor(bytes, [height, width, channels], 'uint8');
    made.push(t);
    if (numChannels < channels) {
      t = ctx.ops.slice(t, [0, 0, 0], [-1, -1, numChannels]);
      made.push(t);
    }
    if (dtype === 'int32') {
      t = ctx.ops.cast(t, 'int32');
      made.push(t);
    }
    made.pop();
    return t;
  } finally {
    for (const t of made) t.dispose();
  }
}
