// The extension's own logic, without VS Code: settings to the server and
// the command line, what a file holds, the status bar's words.

import * as assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { documentEnd, holdsCRDs, holdsObjects } from "../manifests";
import { commandFlags, defaults, executable, onPath, readConfig, serverSettings } from "../settings";
import { statusText } from "../status";

test("readConfig takes each setting, and the defaults where unset", () => {
  const set: Record<string, unknown> = { crds: ["config/crd"], offline: true, kubernetesVersion: "1.35" };
  const c = readConfig(<T>(key: string, fallback: T): T => (key in set ? (set[key] as T) : fallback));
  assert.deepEqual(c, { ...defaults, crds: ["config/crd"], offline: true, kubernetesVersion: "1.35" });
});

test("serverSettings are the server's names for them", () => {
  const s = serverSettings({ ...defaults, crds: ["a"], policies: ["p"], context: "kind", costWarning: -1, lint: "off", kubernetesVersion: "1.34" });
  assert.deepEqual(s, { crds: ["a"], policies: ["p"], kubernetesVersion: "1.34", offline: false, context: "kind", costWarning: -1, lint: "off" });
  assert.equal("path" in s, false, "the executable's path is not the server's setting");
});

test("executable: the path setting, then kubectl-crd on PATH, then kubectl crd", () => {
  assert.deepEqual(executable({ ...defaults, path: "/opt/kubectl-crd" }, () => true), { command: "/opt/kubectl-crd", args: [] });
  assert.deepEqual(executable(defaults, (n) => n === "kubectl-crd"), { command: "kubectl-crd", args: [] });
  assert.deepEqual(executable(defaults, () => false), { command: "kubectl", args: ["crd"] });
});

test("onPath looks in PATH's directories", () => {
  const seen: string[] = [];
  const found = onPath({ PATH: ["/a", "/b"].join(path.delimiter) }, (f) => {
    seen.push(f);
    return f === path.join("/b", "kubectl-crd");
  });
  assert.equal(found("kubectl-crd"), true);
  assert.equal(found("kubectl"), false);
  assert.ok(seen.includes(path.join("/a", "kubectl-crd")));
});

test("commandFlags: CRDs from the workspace, the file when it holds CRDs, context and version", () => {
  const c = { ...defaults, crds: ["crds", "/abs/crds", "https://example.com/crd.yaml", "git:main:config/crd"], context: "dev", kubernetesVersion: "1.36" };
  assert.deepEqual(commandFlags(c, "/ws", "/ws/app.yaml", true), [
    "--crds", path.join("/ws", "crds"), "--crds", "/abs/crds", "--crds", "https://example.com/crd.yaml", "--crds", "git:main:config/crd",
    "--crds", "/ws/app.yaml", "--context", "dev", "--kubernetes-version", "1.36",
  ]);
  assert.deepEqual(commandFlags(defaults, undefined, "/x.yaml", false), []);
});

test("holdsObjects: Kubernetes objects in YAML or JSON, not other YAML", () => {
  assert.equal(holdsObjects("apiVersion: v1\nkind: ConfigMap\n"), true);
  assert.equal(holdsObjects('{"apiVersion": "v1", "kind": "List"}'), true);
  assert.equal(holdsObjects("services:\n  web:\n    image: nginx\n"), false);
  assert.equal(holdsObjects("on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n"), false);
  assert.equal(holdsObjects("spec:\n  kind: nested\n"), false);
});

test("holdsCRDs", () => {
  assert.equal(holdsCRDs("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"), true);
  assert.equal(holdsCRDs("kind: CronTab\n"), false);
});

test("documentEnd: the next separator, or the end", () => {
  const lines = ["a: 1", "---", "b: 2", "c: 3", "--- # next", "d: 4"];
  assert.equal(documentEnd(lines, 0), 1);
  assert.equal(documentEnd(lines, 2), 4);
  assert.equal(documentEnd(lines, 5), 6);
});

test("statusText says the state", () => {
  assert.match(statusText({ state: "ready", kubernetesVersion: "1.37", online: false }).tooltip, /1\.37, offline/);
  assert.match(statusText({ state: "ready", kubernetesVersion: "1.35", online: true }).text, /1\.35 \$\(cloud\)/);
  assert.match(statusText({ state: "error", message: "no cluster" }).tooltip, /no cluster/);
  assert.match(statusText({ state: "checking" }).text, /spin/);
});
