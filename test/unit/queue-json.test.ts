/** Queue message text: the same JSON value, with nothing in it that SQS or the sandbox's emulator refuses. */
import { describe, expect, it } from "vitest";
import { pipelineJson, queueJson } from "../../shared/events/queue-json.ts";

/** What SQS takes in a message body (its documented character set). */
const SQS_CHARS = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
const value = { content: "Olá 😀 \u0000 \ufffe\uffff \u{1F3F3}\u{FE0F}", lone: "\ud800", nested: [{ s: "𝄞" }] };

describe("queue message text", () => {
  it("parses back to the same value", () => {
    expect(JSON.parse(queueJson(value))).toEqual(value);
    expect(JSON.parse(pipelineJson(value))).toEqual(value);
  });

  it("holds only characters SQS takes, and no character outside the BMP", () => {
    const text = queueJson(value);
    expect(text).toMatch(SQS_CHARS);
    expect(text).not.toMatch(/[\ud800-\udfff]/);
    expect(text).toContain("\\ud83d\\ude00");
  });

  it("keeps emoji and accents as they are in the stored payload, escaping only the noncharacters", () => {
    const text = pipelineJson(value);
    expect(text).toMatch(SQS_CHARS);
    expect(text).toContain("Olá 😀");
    expect(text).toContain("\\ufffe\\uffff");
  });
});
