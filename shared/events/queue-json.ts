/**
 * JSON text that every queue on the way takes. SQS accepts only #x9, #xA, #xD, #x20–#xD7FF,
 * #xE000–#xFFFD and #x10000–#x10FFFF in a message; JSON.stringify already escapes the control
 * characters and lone surrogates, which leaves the noncharacters U+FFFE and U+FFFF. Characters
 * outside the Basic Multilingual Plane (emoji) are valid in SQS but refused by some emulators,
 * the sandbox's among them. Both are written as `\uXXXX` escapes: the same JSON value, in text
 * that cannot be refused. Non-ASCII characters only occur inside JSON strings, where an escape
 * means the character itself.
 */

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** JSON text as stored for the event pipeline: U+FFFE and U+FFFF escaped (SQS refuses them raw). */
export const pipelineJson = (value: unknown): string => JSON.stringify(value).replace(/[\ufffe\uffff]/g, escape);

/** JSON text for a queue message: also every character outside the BMP escaped (each UTF-16 half). */
export const queueJson = (value: unknown): string => JSON.stringify(value).replace(/[\ud800-\udfff\ufffe\uffff]/g, escape);
