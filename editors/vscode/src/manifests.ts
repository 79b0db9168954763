// What the extension reads of a YAML or JSON file itself: whether it holds
// Kubernetes objects at all, and where a document ends.

/**
 * Whether text holds a Kubernetes object: a top-level apiVersion or kind
 * key in YAML, or an "apiVersion" or "kind" member in JSON. A YAML file
 * that is something else (a CI workflow, a compose file) gets no
 * diagnostics from kubectl crd.
 */
export function holdsObjects(text: string): boolean {
  return /^(apiVersion|kind)\s*:/m.test(text) || /"(apiVersion|kind)"\s*:/.test(text);
}

/** Whether text holds a CRD (then explain and sample read the file too). */
export function holdsCRDs(text: string): boolean {
  return /^kind\s*:\s*["']?CustomResourceDefinition["']?\s*$/m.test(text) || /"kind"\s*:\s*"CustomResourceDefinition"/.test(text);
}

/**
 * The line after the YAML document that line is in: the line of the next
 * "---" separator, or the number of lines.
 */
export function documentEnd(lines: string[], line: number): number {
  for (let i = line + 1; i < lines.length; i++) {
    if (/^---(\s|$)/.test(lines[i])) {
      return i;
    }
  }
  return lines.length;
}
