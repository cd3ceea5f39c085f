//! qr-generate: a PNG QR code of the text, exactly `size` pixels square.
import { QUIET_ZONE_MODULES, encodeQr, type QrGenerateInput, type QrGenerateOutput } from '../../domain/tools/qr-generate.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { renderQrPng } from '../cpu/qr-png.js';

/**
 * No dependencies: encoding (~1-30 ms of pure JS) runs on the calling thread, and the PNG's
 * compression runs on libuv's pool (see qr-png.ts), so no worker thread is needed.
 */
export function createQrGenerate(): ToolHandler<QrGenerateInput, QrGenerateOutput> {
  return async (input) => {
    // The same check the API ran, and its result is the matrix to draw.
    const qr = encodeQr(input);
    const png = await renderQrPng(qr.modules, input.size, QUIET_ZONE_MODULES);
    return { imageBase64: png.toString('base64'), mimeType: 'image/png', size: input.size };
  };
}
