import type { Server } from "node:http";

export function createReceiver(options: {
  secrets: string[];
  onEvent: (event: unknown, meta: { id: string; test: boolean }) => unknown;
  seenTtlMs?: number;
}): Server;
