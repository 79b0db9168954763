// What the extension's settings mean to the server and to the command
// line: kept apart from the editor's API so that the tests run it in Node.

import * as path from "path";

/** The extension's settings, as VS Code's configuration holds them. */
export interface Config {
  path: string;
  crds: string[];
  policies: string[];
  kubernetesVersion: string;
  offline: boolean;
  context: string;
  costWarning: number;
  lint: string;
}

export const defaults: Config = {
  path: "",
  crds: [],
  policies: [],
  kubernetesVersion: "",
  offline: false,
  context: "",
  costWarning: 50,
  lint: "crd",
};

/** Reads the settings through get (VS Code's WorkspaceConfiguration.get). */
export function readConfig(get: <T>(key: string, fallback: T) => T): Config {
  return {
    path: get("path", defaults.path),
    crds: get("crds", defaults.crds),
    policies: get("policies", defaults.policies),
    kubernetesVersion: get("kubernetesVersion", defaults.kubernetesVersion),
    offline: get("offline", defaults.offline),
    context: get("context", defaults.context),
    costWarning: get("costWarning", defaults.costWarning),
    lint: get("lint", defaults.lint),
  };
}

/**
 * The server's settings (kubectl crd lsp's initializationOptions), as
 * docs/lsp.md names them. The server makes relative paths relative to the
 * workspace folder.
 */
export function serverSettings(c: Config): Record<string, unknown> {
  return {
    crds: c.crds,
    policies: c.policies,
    kubernetesVersion: c.kubernetesVersion,
    offline: c.offline,
    context: c.context,
    costWarning: c.costWarning,
    lint: c.lint,
  };
}

/** How the server (or a command) is started: the executable and the arguments before the verb's own. */
export interface Executable {
  command: string;
  args: string[];
}

/**
 * The kubectl-crd executable: the path setting, else kubectl-crd on PATH
 * (onPath tells whether a name is there), else the plugin through
 * kubectl. Nothing is downloaded.
 */
export function executable(c: Config, onPath: (name: string) => boolean): Executable {
  if (c.path !== "") {
    return { command: c.path, args: [] };
  }
  if (onPath("kubectl-crd")) {
    return { command: "kubectl-crd", args: [] };
  }
  return { command: "kubectl", args: ["crd"] };
}

/** onPath looks for an executable in the directories of PATH. */
export function onPath(env: NodeJS.ProcessEnv, exists: (file: string) => boolean): (name: string) => boolean {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE").split(";") : [""];
  return (name) => dirs.some((d) => exts.some((e) => exists(path.join(d, name + e))));
}

/**
 * The flags that give a command (explain, sample) the CRDs and cluster
 * the server answers from: the crds setting (relative paths from root),
 * the file itself when it holds CRDs, the context and the version.
 */
export function commandFlags(c: Config, root: string | undefined, file: string | undefined, fileHasCRDs: boolean): string[] {
  const flags: string[] = [];
  for (const p of c.crds) {
    const isPath = !/^(https?:|git:)/.test(p) && !path.isAbsolute(p) && root !== undefined;
    flags.push("--crds", isPath ? path.join(root, p) : p);
  }
  if (file !== undefined && fileHasCRDs) {
    flags.push("--crds", file);
  }
  if (c.context !== "") {
    flags.push("--context", c.context);
  }
  if (c.kubernetesVersion !== "") {
    flags.push("--kubernetes-version", c.kubernetesVersion);
  }
  return flags;
}
