import assert from "node:assert/strict";
import { imageSizeOf } from "./image_size.ts";
import { openAiImageTokens } from "./openai_image_tokens.ts";

// Expected values: OpenAI, "Images and vision: calculating costs" (platform.openai.com/docs/guides/images-vision).
Deno.test("tile models: OpenAI's worked examples", () => {
  assert.equal(openAiImageTokens("gpt-4o", { width: 1024, height: 1024 }, "high"), 765);
  assert.equal(openAiImageTokens("gpt-4o", { width: 2048, height: 4096 }, "high"), 1105);
  assert.equal(openAiImageTokens("gpt-4o", { width: 4096, height: 8192 }, "low"), 85);
  assert.equal(openAiImageTokens("gpt-4o", { width: 1024, height: 1024 }), 765, "auto counts as high");
  assert.equal(openAiImageTokens("gpt-4o-mini", { width: 4096, height: 8192 }, "low"), 2_833);
  assert.equal(openAiImageTokens("gpt-5", { width: 1024, height: 1024 }, "high"), 70 + 140 * 4);
  assert.equal(openAiImageTokens("o3", { width: 512, height: 512 }, "high"), 75 + 150);
});

Deno.test("patch models: OpenAI's worked examples (1,024 and 1,452 patches) times the multiplier, plus one", () => {
  // The + 1: measured prompt_tokens (community.openai.com/t/1262691) are one above the guide's rule.
  assert.equal(openAiImageTokens("gpt-4.1-mini", { width: 1024, height: 1024 }), Math.ceil(1024 * 1.62) + 1);
  assert.equal(openAiImageTokens("gpt-4.1-mini", { width: 1800, height: 2400 }), Math.ceil(1452 * 1.62) + 1);
  assert.equal(openAiImageTokens("gpt-4.1-nano", { width: 1800, height: 2400 }), Math.ceil(1452 * 2.46) + 1);
  assert.equal(openAiImageTokens("o4-mini", { width: 1024, height: 1024 }), Math.ceil(1024 * 1.72) + 1);
  assert.equal(openAiImageTokens("gpt-4.1-mini", { width: 128, height: 64 }), 14); // 8 patches
});

function b64(bytes: number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

Deno.test("imageSizeOf reads PNG, GIF, JPEG and WebP headers and refuses the rest", () => {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52];
  png.push(0, 0, 0x07, 0x80, 0, 0, 0x04, 0x38, 8, 6, 0, 0, 0); // 1920 × 1080
  assert.deepEqual(imageSizeOf(b64(png)), { width: 1920, height: 1080 });
  const gif = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x20, 0x03, 0x58, 0x02, 0, 0]; // 800 × 600
  assert.deepEqual(imageSizeOf(b64(gif)), { width: 800, height: 600 });
  const app1 = [0xff, 0xe1, 0x00, 0x10, ...new Array(14).fill(0)];
  const sof2 = [0xff, 0xc2, 0x00, 0x11, 0x08, 0x02, 0xd0, 0x05, 0x00, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  assert.deepEqual(imageSizeOf(b64([0xff, 0xd8, ...app1, ...sof2])), { width: 1280, height: 720 });
  const riff = [0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50];
  const vp8x = [0x56, 0x50, 0x38, 0x58, 10, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x03, 0x00, 0xff, 0x01, 0x00, 0, 0];
  assert.deepEqual(imageSizeOf(b64([...riff, ...vp8x])), { width: 1024, height: 512 });
  assert.equal(imageSizeOf(b64([1, 2, 3, 4, 5, 6])), undefined);
  assert.equal(imageSizeOf("not base64 at all!"), undefined);
});
