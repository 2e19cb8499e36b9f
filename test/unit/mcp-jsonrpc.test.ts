import { describe, expect, it } from "vitest";
import { checkMessage, JsonRpcFault } from "../../src/mcp/server.ts";

function fault(value: unknown): JsonRpcFault {
  try {
    checkMessage(value);
  } catch (failure) {
    if (failure instanceof JsonRpcFault) return failure;
    throw failure;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
}

describe("checkMessage", () => {
  it("accepts requests, notifications and responses", () => {
    expect(checkMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toMatchObject({ nullId: false });
    expect(
      checkMessage({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x", arguments: {} } }),
    ).toMatchObject({
      nullId: false,
    });
    expect(checkMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).not.toHaveProperty("drop");
    expect(checkMessage({ jsonrpc: "2.0", id: 5, result: {} })).toMatchObject({ nullId: false });
  });

  it("flags a null id so that it can be restored in the answer", () => {
    expect(checkMessage({ jsonrpc: "2.0", id: null, method: "ping" })).toMatchObject({ nullId: true });
  });

  it("drops malformed notifications instead of answering them", () => {
    expect(checkMessage({ jsonrpc: "2.0", method: "notifications/x", params: [1] })).toMatchObject({ drop: true });
  });

  it("refuses batches, non-objects and wrong versions with -32600", () => {
    expect(fault([])).toMatchObject({ status: 400, code: -32600, id: null });
    expect(fault("x")).toMatchObject({ status: 400, code: -32600 });
    expect(fault({ jsonrpc: "1.0", id: 3, method: "ping" })).toMatchObject({ status: 400, code: -32600, id: 3 });
    expect(fault({ jsonrpc: "2.0", id: true, method: "ping" })).toMatchObject({ code: -32600, id: null });
    expect(fault({ jsonrpc: "2.0", id: 2 })).toMatchObject({ code: -32600, id: 2 });
    expect(fault({ jsonrpc: "2.0", id: 2, method: "" })).toMatchObject({ code: -32600, id: 2 });
    expect(fault({ jsonrpc: "2.0", id: 2, method: "ping", other: 1 })).toMatchObject({ code: -32600, id: 2 });
  });

  it("refuses malformed params of the served methods with -32602 and the id", () => {
    expect(fault({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} })).toMatchObject({
      status: 200,
      code: -32602,
      id: 1,
    });
    expect(fault({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: "a" } })).toMatchObject(
      {
        code: -32602,
      },
    );
    expect(
      fault({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } }),
    ).toMatchObject({
      code: -32602,
    });
    expect(fault({ jsonrpc: "2.0", id: 1, method: "ping", params: 3 })).toMatchObject({ code: -32602 });
  });

  it("renders a JSON-RPC error body", async () => {
    const response = new JsonRpcFault(400, 9, -32600, "Invalid Request").toResponse();
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32600, message: "Invalid Request" },
    });
  });
});
