// The VS Code extension: starts kubectl crd lsp for the workspace (one
// server), passes it the settings, shows its state in the status bar, and
// adds the explain, sample and restart commands. Everything it shows comes
// from kubectl crd itself.

import * as cp from "child_process";
import * as fs from "fs";
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  StaticFeature,
} from "vscode-languageclient/node";
import { documentEnd, holdsCRDs, holdsObjects } from "./manifests";
import { Config, commandFlags, executable, onPath, readConfig, serverSettings } from "./settings";
import { Status, statusText } from "./status";

/** The server's answer to kubectl-crd/typeAt (docs/lsp.md). */
interface TypeAt {
  apiVersion: string;
  kind: string;
  resource: string;
  field: string;
}

let client: LanguageClient | undefined;
let statusItem: vscode.StatusBarItem;
let output: vscode.LogOutputChannel;
// starting serialises starts and stops: one server per workspace.
let starting: Promise<void> = Promise.resolve();

export function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("kubectl crd", { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  statusItem.command = "kubectl-crd.restart";
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand("kubectl-crd.restart", () => restart()),
    vscode.commands.registerCommand("kubectl-crd.explain", () => explain()),
    vscode.commands.registerCommand("kubectl-crd.sample", () => sample()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("kubectl-crd")) {
        void restart();
      }
    }),
  );
  return restart();
}

export function deactivate(): Promise<void> | undefined {
  return client?.stop();
}

function config(): Config {
  const c = vscode.workspace.getConfiguration("kubectl-crd");
  return readConfig((key, fallback) => c.get(key, fallback));
}

function root(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function show(s: Status): void {
  const { text, tooltip } = statusText(s);
  statusItem.text = text;
  statusItem.tooltip = tooltip;
  statusItem.show();
}

/** restart stops the server (if any) and starts one with the settings now. */
function restart(): Promise<void> {
  starting = starting.then(async () => {
    const old = client;
    client = undefined;
    if (old !== undefined) {
      await old.stop().catch(() => undefined);
    }
    await start();
  });
  return starting;
}

/**
 * asksForStatus declares the experimental capability that makes the server
 * send kubectl-crd/status.
 */
const asksForStatus: StaticFeature = {
  fillClientCapabilities(capabilities) {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, "kubectl-crd/status": true };
  },
  initialize() {},
  getState() {
    return { kind: "static" };
  },
  clear() {},
};

/**
 * Restarts restarts a server that stopped, at most three times in three
 * minutes; then it says so and leaves it stopped.
 */
class Restarts implements ErrorHandler {
  private stops: number[] = [];

  error(): ErrorHandlerResult {
    return { action: ErrorAction.Continue };
  }

  closed(): CloseHandlerResult {
    const now = Date.now();
    this.stops = this.stops.filter((t) => now - t < 3 * 60 * 1000);
    this.stops.push(now);
    if (this.stops.length > 3) {
      const message = "kubectl crd lsp stopped four times in three minutes and is not restarted: see the output “kubectl crd”, then run “kubectl crd: Restart server”.";
      show({ state: "stopped", message });
      return { action: CloseAction.DoNotRestart, message };
    }
    show({ state: "checking" });
    return { action: CloseAction.Restart, handled: true };
  }
}

async function start(): Promise<void> {
  const cfg = config();
  const exe = executable(cfg, onPath(process.env, (f) => fs.existsSync(f)));
  const serverOptions: ServerOptions = {
    command: exe.command,
    // No transport: with TransportKind.stdio the client adds --stdio to
    // the arguments, which kubectl crd lsp (stdio always) refuses.
    args: [...exe.args, "lsp"],
    options: { cwd: root() },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "json" },
      { scheme: "untitled", language: "yaml" },
    ],
    initializationOptions: serverSettings(cfg),
    diagnosticCollectionName: "kubectl-crd",
    outputChannel: output,
    errorHandler: new Restarts(),
    middleware: {
      // A YAML or JSON file that holds no Kubernetes object (a workflow,
      // a compose file) gets nothing from kubectl crd.
      handleDiagnostics(uri, diagnostics, next) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        next(uri, doc !== undefined && !holdsObjects(doc.getText()) ? [] : diagnostics);
      },
    },
  };
  const c = new LanguageClient("kubectl-crd", "kubectl crd", serverOptions, clientOptions);
  c.registerFeature(asksForStatus);
  c.onNotification("kubectl-crd/status", (s: Status) => show(s));
  show({ state: "checking" });
  try {
    await c.start();
    client = c;
  } catch (err) {
    const message = `${exe.command} ${[...exe.args, "lsp"].join(" ")} did not start: ${String(err)}. Install kubectl crd (kubectl krew install crd, or go install), or set kubectl-crd.path.`;
    show({ state: "stopped", message });
    void vscode.window.showErrorMessage(message);
  }
}

/** typeAt asks the server for the type and field at the cursor. */
async function typeAt(editor: vscode.TextEditor): Promise<TypeAt | undefined> {
  if (client === undefined) {
    void vscode.window.showErrorMessage("kubectl crd: the server is not running.");
    return undefined;
  }
  const params = client.code2ProtocolConverter.asTextDocumentPositionParams(editor.document, editor.selection.active);
  const at = await client.sendRequest<TypeAt | null>("kubectl-crd/typeAt", params);
  if (at === null) {
    void vscode.window.showInformationMessage("kubectl crd: the cursor is not in an object of a known CRD.");
    return undefined;
  }
  return at;
}

/** run runs a kubectl crd command and returns its standard output. */
function run(args: string[]): Promise<string> {
  const exe = executable(config(), onPath(process.env, (f) => fs.existsSync(f)));
  return new Promise((resolve, reject) => {
    cp.execFile(exe.command, [...exe.args, ...args], { cwd: root(), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err !== null) {
        reject(new Error(stderr.trim() || err.message));
      } else {
        resolve(stdout);
      }
    });
  });
}

function flagsFor(doc: vscode.TextDocument): string[] {
  const file = doc.uri.scheme === "file" ? doc.uri.fsPath : undefined;
  return commandFlags(config(), root(), file, holdsCRDs(doc.getText()));
}

async function explain(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const at = editor && (await typeAt(editor));
  if (editor === undefined || at === undefined) {
    return;
  }
  const plural = at.resource.split(".")[0];
  const target = at.field !== "" ? `${plural}.${at.field}` : plural;
  try {
    const text = await run(["explain", target, "--api-version", at.apiVersion, ...flagsFor(editor.document)]);
    const doc = await vscode.workspace.openTextDocument({ content: text, language: "plaintext" });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  } catch (err) {
    void vscode.window.showErrorMessage(`kubectl crd explain: ${String(err)}`);
  }
}

async function sample(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const at = editor && (await typeAt(editor));
  if (editor === undefined || at === undefined) {
    return;
  }
  try {
    const text = await run(["sample", at.resource, "--api-version", at.apiVersion, ...flagsFor(editor.document)]);
    const lines = editor.document.getText().split(/\r?\n/);
    const end = documentEnd(lines, editor.selection.active.line);
    const insert = end < lines.length ? `---\n${text}` : `${lines[lines.length - 1] === "" ? "" : "\n"}---\n${text}`;
    await editor.edit((e) => e.insert(new vscode.Position(end, 0), insert));
  } catch (err) {
    void vscode.window.showErrorMessage(`kubectl crd sample: ${String(err)}`);
  }
}
