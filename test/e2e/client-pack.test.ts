/**
 * The client ships as an installable tarball: `npm pack` in client/ builds dist/ (prepack), the
 * tarball installs OFFLINE into an empty project (its one dependency comes from the npm cache or,
 * failing that, from this repository's node_modules: never the network), imports with plain node,
 * and the README's TypeScript examples (the five common tasks) typecheck against the installed types.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT = join(ROOT, "client");
const LIMITS = { timeout: 180_000, maxBuffer: 16 * 1024 * 1024 };
/** npm without the network: offline, no audit, no funding call, no update check. */
const OFFLINE_ENV = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

let work: string;
let tarball: string;
let app: string;
let files: string[];

/** The ```ts blocks of client/README.md, in order: together they are one program. */
async function readmeProgram(): Promise<string> {
  const readme = await readFile(join(CLIENT, "README.md"), "utf8");
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "conversa-client-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: CLIENT, env: OFFLINE_ENV, ...LIMITS });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, packed!.filename);
  files = packed!.files.map((f) => f.path).sort();

  app = join(work, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "client-consumer", private: true, type: "module" }));
  try {
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: app, env: OFFLINE_ENV, ...LIMITS });
  } catch {
    // The dependency is not in the npm cache: unpack the tarball and take the dependency from this repository.
    const target = join(app, "node_modules", "@conversa", "client");
    await mkdir(target, { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], LIMITS);
    for (const dep of ["standardwebhooks", "@stablelib/base64", "fast-sha256"]) {
      await cp(join(ROOT, "node_modules", dep), join(app, "node_modules", dep), { recursive: true });
    }
  }
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("npm pack of client/", () => {
  it("holds the built ESM, its types, the README and package.json, and no sources", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "dist/webhooks.js"]));
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "README.md" && f !== "package.json")).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("installs into an empty project and imports with plain node", async () => {
    const script = `import("@conversa/client").then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`;

    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: app, ...LIMITS });

    expect(JSON.parse(stdout)).toEqual(["ConversaError", "OPERATIONS", "WebhookVerificationError", "createClient", "verifyWebhook"]);
  });

  it("typechecks the README's five tasks against the installed types", async () => {
    // Arrange
    await writeFile(join(app, "tasks.ts"), `${await readmeProgram()}\nexport {};\n`);
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        files: ["tasks.ts"],
      }),
    );
    // Act
    const check = run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", app], { cwd: app, ...LIMITS });
    // Assert
    await expect(check).resolves.toMatchObject({ stdout: "" });
  });
});
