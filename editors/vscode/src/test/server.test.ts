// The server as the extension starts and speaks to it, over stdio: the
// settings the extension sends (serverSettings), the status notifications
// it asks for, diagnostics equal to kubectl crd validate's findings, a
// hover, and the typeAt request its commands send. KUBECTL_CRD_BIN names
// the binary; without it the test builds one with go.

import * as assert from "node:assert/strict";
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { defaults, serverSettings } from "../settings";
import { Status } from "../status";

const repo = path.resolve(__dirname, "../../../..");
const crds = path.join(repo, "examples/crds");
const invalid = path.join(repo, "examples/objects/invalid/crontabs.yaml");

interface Diagnostic {
  range: { start: { line: number } };
  message: string;
  code?: string;
}

let bin: string;
let server: cp.ChildProcess;
let conn: MessageConnection;
const statuses: Status[] = [];
const published = new Map<string, Diagnostic[]>();
let onPublished: () => void = () => {};

before(() => {
  bin = process.env.KUBECTL_CRD_BIN ?? "";
  if (bin === "") {
    bin = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "kubectl-crd-")), "kubectl-crd");
    cp.execFileSync("go", ["build", "-o", bin, "./cmd/kubectl-crd"], { cwd: repo, stdio: "inherit" });
  }
  server = cp.spawn(bin, ["lsp"], { cwd: repo, env: { ...process.env, KUBECONFIG: path.join(os.tmpdir(), "no-kubeconfig") } });
  conn = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  conn.onNotification("kubectl-crd/status", (s: Status) => {
    statuses.push(s);
  });
  conn.onNotification("textDocument/publishDiagnostics", (p: { uri: string; diagnostics: Diagnostic[] }) => {
    published.set(p.uri, p.diagnostics);
    onPublished();
  });
  conn.listen();
});

after(async () => {
  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  await new Promise((resolve) => server.once("exit", resolve));
  conn.dispose();
});

function diagnosticsOf(uri: string, want: (d: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no diagnostics of ${uri}`)), 60000);
    onPublished = () => {
      const d = published.get(uri);
      if (d !== undefined && want(d)) {
        clearTimeout(timer);
        resolve(d);
      }
    };
    onPublished();
  });
}

test("the server takes the extension's settings and answers as validate", async () => {
  const settings = serverSettings({ ...defaults, crds: [path.relative(repo, crds)], offline: true, kubernetesVersion: "1.35" });
  const init = await conn.sendRequest<{ serverInfo?: { name: string } }>("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(repo).href,
    capabilities: { experimental: { "kubectl-crd/status": true } },
    initializationOptions: settings,
  });
  assert.equal(init.serverInfo?.name, "kubectl-crd");
  conn.sendNotification("initialized", {});

  const uri = pathToFileURL(invalid).href;
  const text = fs.readFileSync(invalid, "utf8");
  conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text } });
  const diags = await diagnosticsOf(uri, (d) => d.length > 0);

  // validate's findings on the same file, as the editor's messages.
  const run = cp.spawnSync(bin, ["validate", "--offline", "--kubernetes-version", "1.35", "--crds", crds, "-f", invalid, "-o", "json"], { encoding: "utf8", env: { ...process.env, KUBECONFIG: "" } });
  assert.equal(run.status, 1, `validate of the invalid examples exits 1: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { results: { errors?: { field: string; message: string; line: number }[] }[] };
  const first = report.results.flatMap((r) => r.errors ?? [])[0];
  assert.ok(first, "validate finds errors in the invalid examples");
  const same = diags.find((d) => d.range.start.line === first.line - 1);
  assert.equal(same?.message, `${first.field}: ${first.message}`);

  const ready = statuses.filter((s) => s.state === "ready");
  assert.deepEqual(ready[ready.length - 1], { state: "ready", kubernetesVersion: "1.35", online: false });

  // A hover on the field validate named gives its documentation.
  const lines = text.split("\n");
  const row = first.line - 1;
  const col = lines[row].indexOf(first.field.split(".").pop()!);
  const hover = await conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri }, position: { line: row, character: col + 1 } });
  assert.ok(hover, "a hover on the field");
  assert.match(hover.contents.value, new RegExp(first.field.split(".").pop()!));

  // What the explain and sample commands ask.
  const at = await conn.sendRequest<{ resource: string; field: string; apiVersion: string } | null>("kubectl-crd/typeAt", { textDocument: { uri }, position: { line: row, character: col + 1 } });
  assert.deepEqual(at && { resource: at.resource, field: at.field }, { resource: "crontabs.stable.example.com", field: first.field });

  // The edit that mends the object takes its diagnostic away.
  const mended = lines.map((l, i) => (i === row ? l.replace(/:.*/, ": \"*/5 * * * *\"") : l)).join("\n");
  conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: 2 }, contentChanges: [{ text: mended }] });
  const after = await diagnosticsOf(uri, (d) => !d.some((x) => x.message === same?.message));
  assert.equal(after.some((d) => d.range.start.line === row), false);
});
