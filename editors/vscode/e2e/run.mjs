// The extension in a real VS Code: code-server, started on loopback with
// the built .vsix installed, opened in Debian's headless Chromium through
// playwright-core, on a workspace with the example CRDs and the invalid
// CronTabs. The test waits for the Problems panel to list the diagnostics
// of the invalid objects and requires one to equal kubectl crd validate's
// message, hovers a field and reads explain's text, mends the value and
// sees the diagnostic go, and keeps screenshots of each step.
//
// Usage (Node 24, which code-server needs): node run.mjs VSIX KUBECTL_CRD OUTDIR

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const [vsix, bin, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
if (!vsix || !bin || !outDir) {
  console.error("usage: node run.mjs VSIX KUBECTL_CRD OUTDIR");
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const codeServer = path.join(here, "node_modules/.bin/code-server");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";

function fail(msg) {
  throw new Error(msg);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kubectl-crd-vscode-"));
const ws = path.join(tmp, "workspace");
fs.mkdirSync(path.join(ws, ".vscode"), { recursive: true });
fs.cpSync(path.join(repo, "examples/crds"), path.join(ws, "crds"), { recursive: true });
const crontabs = path.join(ws, "crontabs.yaml");
fs.copyFileSync(path.join(repo, "examples/objects/invalid/crontabs.yaml"), crontabs);
fs.writeFileSync(path.join(ws, "compose.yaml"), "services:\n  web:\n    image: nginx\n");
fs.writeFileSync(
  path.join(ws, ".vscode/settings.json"),
  JSON.stringify({ "kubectl-crd.path": bin, "kubectl-crd.crds": ["crds"], "kubectl-crd.offline": true, "workbench.startupEditor": "none" }, null, 2),
);

// validate's first finding on the file: the message the editor must show.
const v = spawnSync(bin, ["validate", "--offline", "--crds", path.join(ws, "crds"), "-f", crontabs, "-o", "json"], { encoding: "utf8", env: { ...process.env, KUBECONFIG: "" } });
const first = JSON.parse(v.stdout).results.flatMap((r) => r.errors ?? [])[0];
if (!first) fail(`validate found nothing: ${v.stderr}`);
const expected = `${first.field}: ${first.message}`;

const dirs = ["--user-data-dir", path.join(tmp, "data"), "--extensions-dir", path.join(tmp, "extensions")];
const install = spawnSync(codeServer, [...dirs, "--install-extension", vsix], { encoding: "utf8" });
if (install.status !== 0) fail(`installing ${vsix}: ${install.stdout}${install.stderr}`);

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn(codeServer, ["--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
  "--disable-workspace-trust", ...dirs, ws], { env: { ...process.env, KUBECONFIG: path.join(tmp, "no-kubeconfig") }, stdio: ["ignore", "pipe", "pipe"] });
let serverLog = "";
server.stdout.on("data", (d) => (serverLog += d));
server.stderr.on("data", (d) => (serverLog += d));

fs.mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let step = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const shot = (name) => page.screenshot({ path: path.join(outDir, `${String(++step).padStart(2, "0")}-${name}.png`) });
  for (let i = 0; ; i++) {
    try {
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
      break;
    } catch (e) {
      if (i > 60) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await page.waitForSelector(".monaco-workbench", { timeout: 120000 });

  // Files open from the Explorer, as a user clicks them.
  const open = async (name) => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first().click({ timeout: 60000 });
    await page.locator(".tabs-container .tab", { hasText: name }).first().waitFor({ timeout: 30000 });
  };
  await open("crontabs.yaml");
  await page.keyboard.press("Control+Shift+M"); // the Problems panel
  const problems = page.locator(".markers-panel .monaco-list-row");
  const messageRow = problems.filter({ hasText: first.message.slice(0, 40) });
  await messageRow.first().waitFor({ timeout: 60000 });
  const texts = await problems.allInnerTexts();
  if (!texts.some((t) => t.includes(expected))) fail(`no problem reads ${JSON.stringify(expected)}; the panel shows:\n${texts.join("\n")}`);
  if (!texts.some((t) => t.includes("kubectl-crd"))) fail(`the problems do not name their source kubectl-crd:\n${texts.join("\n")}`);
  const status = await page.locator(".statusbar-item", { hasText: "kubectl crd" }).first().getAttribute("aria-label");
  if (!/kubectl crd/.test(status ?? "")) fail(`no kubectl crd status bar item: ${status}`);
  await shot("problems");

  // Hover the field validate names: explain's description of it.
  const key = first.field.split(".").pop();
  const line = page.locator(".view-line", { hasText: `${key}:` }).first();
  const box = await line.boundingBox();
  await page.mouse.move(box.x + 30, box.y + box.height / 2);
  const hover = page.locator(".monaco-hover-content", { hasText: key });
  await hover.first().waitFor({ timeout: 30000 });
  const hoverText = await hover.first().innerText();
  const explain = spawnSync(bin, ["explain", `crontabs.${first.field}`, "--api-version", "stable.example.com/v1", "--crds", path.join(ws, "crds")], { encoding: "utf8", env: { ...process.env, KUBECONFIG: "" } });
  const description = explain.stdout.split("DESCRIPTION:")[1]?.trim().split("\n")[0]?.trim() ?? "";
  if (description === "" || !hoverText.includes(description.slice(0, 30))) fail(`the hover reads ${JSON.stringify(hoverText)}; explain says ${JSON.stringify(description)}`);
  await shot("hover");
  await page.keyboard.press("Escape");

  // Mend the value: its problem goes.
  await line.click();
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+Home");
  const text = await line.innerText();
  await page.keyboard.type(text.replace(/:.*/, ': "*/5 * * * *"').replace(/\u00a0/g, " ").trim());
  await page.waitForFunction((m) => ![...document.querySelectorAll(".markers-panel .monaco-list-row")].some((r) => r.textContent.includes(m)),
    first.message.slice(0, 40), { timeout: 60000 });
  await shot("mended");

  // A YAML file that holds no object gets nothing.
  await open("compose.yaml");
  await page.waitForTimeout(3000);
  const compose = await page.locator(".markers-panel .monaco-list-row", { hasText: "compose.yaml" }).count();
  if (compose !== 0) fail("compose.yaml got diagnostics");
  await shot("compose");
  console.log(`ok: the Problems panel showed ${JSON.stringify(expected)}, the hover explain's description, and the mended value no problem; screenshots in ${outDir}`);
} catch (e) {
  console.error(serverLog.slice(-4000));
  for (const f of fs.readdirSync(path.join(tmp, "data"), { recursive: true })) {
    if (/kubectl.crd|exthost\.log$/i.test(f) && fs.statSync(path.join(tmp, "data", f)).isFile()) {
      console.error(`--- ${f}\n${fs.readFileSync(path.join(tmp, "data", f), "utf8").slice(-3000)}`);
    }
  }
  const page = browser.contexts()[0]?.pages()[0];
  await page?.screenshot({ path: path.join(outDir, "failure.png") }).catch(() => undefined);
  throw e;
} finally {
  await browser.close();
  server.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
