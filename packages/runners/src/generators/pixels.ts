// Images a built-in generator takes in (a file input): decoded in JavaScript, on a render thread.
import jpeg from "jpeg-js";
import { PNG } from "pngjs";

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row after row. */
  rgba: Uint8Array;
}

/**
 * A PNG's or a JPEG's pixels (what the file inputs of built-in models take: their fields say so
 * with x-content-types, and the API checked the type and the pixel count before the run was made).
 */
export function decodeImage(bytes: Uint8Array): Pixels {
  const isPng = bytes[0] === 0x89 && bytes[1] === 0x50;
  const { width, height, data } = isPng
    ? PNG.sync.read(Buffer.from(bytes))
    : jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: 64,
        maxMemoryUsageInMB: 512,
      });
  return { width, height, rgba: data };
}

/** The image scaled to cover width x height (the middle kept, the overflow cropped), nearest pixel. */
export function coverImage(image: Pixels, width: number, height: number): Uint8Array {
  const scale = Math.max(width / image.width, height / image.height);
  const [offsetX, offsetY] = [(image.width * scale - width) / 2, (image.height * scale - height) / 2];
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(image.height - 1, Math.floor((y + offsetY) / scale));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(image.width - 1, Math.floor((x + offsetX) / scale));
      out.set(
        image.rgba.subarray((sy * image.width + sx) * 4, (sy * image.width + sx) * 4 + 4),
        (y * width + x) * 4,
      );
    }
  }
  return out;
}
