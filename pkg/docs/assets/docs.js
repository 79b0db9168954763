// kubectl crd docs: the search box of the index page and the version
// switcher of a CRD's page. The pages read the same without it.
"use strict";
(function () {
  // Search: every term typed must be in the kind, the group or the field
  // path. ?q= in the address fills the box, so a search can be linked.
  const form = document.getElementById("search-form");
  const box = document.getElementById("search");
  const results = document.getElementById("search-results");
  if (form && box && results && typeof crdDocsIndex !== "undefined") {
    const limit = 200;
    form.hidden = false;
    form.addEventListener("submit", (e) => e.preventDefault());
    const link = (href, kind, field, version) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = href;
      a.textContent = kind;
      li.appendChild(a);
      if (field) {
        const code = document.createElement("code");
        code.textContent = field;
        a.append(" ");
        a.appendChild(code);
        li.append(" (" + version + ")");
      }
      return li;
    };
    // paths spells out a CRD's field paths from [parent, name, version].
    const paths = (crd) => {
      if (!crd.paths) {
        crd.paths = [];
        for (const [parent, name, version] of crd.fields) {
          const path = parent < 0 ? name : crd.paths[parent].path + "." + name;
          crd.paths.push({ path: path, version: crd.versions[version] });
        }
      }
      return crd.paths;
    };
    const search = () => {
      const terms = box.value.toLowerCase().split(/\s+/).filter((t) => t);
      results.replaceChildren();
      if (terms.length === 0) return;
      const list = document.createElement("ul");
      let found = 0;
      const add = (li) => {
        if (found++ < limit) list.appendChild(li);
      };
      for (const crd of crdDocsIndex) {
        const head = (crd.kind + " " + crd.group).toLowerCase();
        if (terms.every((t) => head.includes(t))) add(link(crd.page, crd.kind + " (" + crd.group + ")"));
        for (const path of paths(crd)) {
          const text = head + " " + path.path.toLowerCase();
          if (terms.every((t) => text.includes(t))) {
            const anchor = path.version + "." + path.path;
            add(link(crd.page + "#" + encodeURIComponent(anchor), crd.kind, path.path, path.version));
          }
        }
      }
      const status = document.createElement("p");
      status.textContent = found === 0 ? "Nothing matches." : found > limit ? found + " matches; the first " + limit + ":" : found + (found === 1 ? " match:" : " matches:");
      results.append(status, list);
    };
    box.addEventListener("input", search);
    const q = new URLSearchParams(location.search).get("q");
    if (q) {
      box.value = q;
      search();
    }
  }

  // Versions: one section shown at a time; the address's #VERSION or
  // #VERSION.field.path picks it (a version name has no dot).
  const select = document.getElementById("version");
  const sections = document.querySelectorAll("section.version");
  if (select && sections.length > 0) {
    select.form.hidden = false;
    const show = (name) => {
      for (const s of sections) s.hidden = s.dataset.version !== name;
      select.value = name;
    };
    const follow = () => {
      const target = decodeURIComponent(location.hash.slice(1));
      const name = target.split(".")[0].replace(/-(columns|subresources|sample|fields|changes)$/, "");
      const known = Array.from(sections).some((s) => s.dataset.version === name);
      show(known ? name : select.value);
      const el = target && document.getElementById(target);
      if (el) {
        for (let d = el.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
        el.scrollIntoView();
      }
    };
    select.addEventListener("change", () => {
      history.replaceState(null, "", "#" + select.value);
      show(select.value);
    });
    window.addEventListener("hashchange", follow);
    follow();
  }
})();
