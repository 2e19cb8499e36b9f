import { expect } from "vitest";
import type { JsonObject } from "./test-server.ts";

export function expectMeta(body: JsonObject): void {
  expect(body._meta.protocol).toBe("abeille/hateoas");
  expect(body._meta.version).toBe("1.0");
  expect(Number.isNaN(Date.parse(body._meta.timestamp))).toBe(false);
}

/** An error answer in the envelope: success false, data null (or issues), recovery actions, state null. */
export function expectErrorEnvelope(body: JsonObject, code: string): void {
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(5);
  expect(body._state).toBeNull();
  expect(Array.isArray(body._actions)).toBe(true);
  expect(body._actions.length).toBeGreaterThan(0);
  for (const action of body._actions) {
    expect(action).toMatchObject({ rel: expect.any(String), method: expect.any(String), href: expect.any(String) });
  }
  expect(typeof body._links.self).toBe("string");
  expectMeta(body);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js|mjs):\d+/);
  if (code === "VALIDATION_ERROR") expect(Array.isArray(body.data.issues)).toBe(true);
  else expect(body.data).toBeNull();
}
