// The server's state (kubectl-crd/status notifications), as the status bar
// says it.

/** The server's kubectl-crd/status notification (docs/lsp.md). */
export interface Status {
  state: "checking" | "ready" | "error" | "stopped";
  kubernetesVersion?: string;
  online?: boolean;
  message?: string;
}

/** The status bar item's text and tooltip for a state. */
export function statusText(s: Status): { text: string; tooltip: string } {
  switch (s.state) {
    case "checking":
      return { text: "$(sync~spin) kubectl crd", tooltip: "kubectl crd: checking" };
    case "ready": {
      const where = s.online ? "with the cluster" : "offline";
      return {
        text: `$(check) kubectl crd ${s.kubernetesVersion ?? ""} ${s.online ? "$(cloud)" : "$(circle-slash)"}`.trim(),
        tooltip: `kubectl crd: answering as Kubernetes ${s.kubernetesVersion ?? "?"}, ${where}`,
      };
    }
    case "error":
      return { text: "$(error) kubectl crd", tooltip: `kubectl crd cannot check files: ${s.message ?? "unknown error"}` };
    case "stopped":
      return { text: "$(debug-stop) kubectl crd", tooltip: `kubectl crd stopped: ${s.message ?? ""}` };
  }
}
