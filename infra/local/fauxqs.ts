/**
 * fauxqs (SQS/S3 emulator) in process, for the sandbox and the tests. One instance serves every
 * local S3 bucket (and SQS queue); callers point their clients at `endpoint` (S3 path-style).
 */
import { startFauxqs } from "fauxqs";

export type FauxqsServer = Awaited<ReturnType<typeof startFauxqs>>;

export interface LocalAws {
  readonly endpoint: string;
  /** The fauxqs server itself (queues are created on it directly). */
  readonly server: FauxqsServer;
  stop(): Promise<void>;
}

export async function startLocalAws(opts: { port?: number; buckets?: readonly string[] } = {}): Promise<LocalAws> {
  const server = await startFauxqs({ port: opts.port ?? 0, host: "127.0.0.1", logger: false });
  for (const bucket of opts.buckets ?? []) server.createBucket(bucket);
  return { endpoint: server.address, server, stop: () => server.stop() };
}
