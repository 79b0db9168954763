// The extension's lint: typescript-eslint's recommended rules, type-aware.
import tseslint from "typescript-eslint";

export default tseslint.config(
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // node:test's test() and before() return promises the runner awaits.
    files: ["src/test/**"],
    rules: { "@typescript-eslint/no-floating-promises": "off" },
  },
);
