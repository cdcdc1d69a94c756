// An ESLint rule for the import boundaries of the layout (docs/architecture.md). Unlike the core
// `no-restricted-imports`, which sees only `import … from` and `export … from`, it also checks
// `import('…')` (expressions and TypeScript's `import('…').T` types), `require('…')` and
// `import x = require('…')`, and it matches relative imports by the file they resolve to, so that
// `../client/src/x` and `../../client/src/x` are the same part.
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * @typedef {{ module?: string, path?: string, except?: string[], message: string }} Refusal
 *   `module`: a package name, refused with its subpaths (`vscode-languageserver` refuses
 *   `vscode-languageserver/node`). `path`: a folder or file relative to the repository root
 *   (`client/src`), refused with everything under it, except the files listed in `except` (relative to
 *   the root, without extension).
 */

/** Drops a TypeScript or JavaScript extension, so that `x.ts`, `x.js` and `x` name the same module. @param {string} p */
function withoutExtension(p) {
  return p.replace(/\.(?:[cm]?[jt]s|tsx|jsx)$/, '');
}

/**
 * The rule, for a repository rooted at `root`. Options: `{ refuse: Refusal[] }`.
 * @param {string} root
 * @returns {import('eslint').Rule.RuleModule}
 */
export function boundariesRule(root) {
  return {
    meta: {
      type: 'problem',
      docs: { description: 'Refuses imports (static, dynamic, require) that cross a boundary of the layout' },
      schema: [
        {
          type: 'object',
          properties: {
            refuse: {
              type: 'array',
              items: {
                type: 'object',
                properties: { module: { type: 'string' }, path: { type: 'string' }, except: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } },
                required: ['message'],
                additionalProperties: false,
              },
            },
          },
          additionalProperties: false,
        },
      ],
      messages: { refused: "'{{source}}' is refused here: {{message}}" },
    },
    create(context) {
      /** @type {Refusal[]} */
      const refusals = context.options[0]?.refuse ?? [];
      const fromDir = dirname(context.filename);

      /** The refusal that applies to an import string, if any. @param {string} source */
      function refusalOf(source) {
        if (source.startsWith('.') || source.startsWith('/')) {
          const target = withoutExtension(relative(root, resolve(fromDir, source)).split(sep).join('/'));
          return refusals.find((r) => r.path !== undefined && (target === r.path || target.startsWith(`${r.path}/`)) && !(r.except ?? []).includes(target));
        }
        return refusals.find((r) => r.module !== undefined && (source === r.module || source.startsWith(`${r.module}/`)));
      }

      /**
       * Reports `node` when the string literal `literal` names a refused import.
       * @param {import('eslint').Rule.Node} node
       * @param {{ type: string, value?: unknown } | null | undefined} literal
       */
      function check(node, literal) {
        if (!literal || literal.type !== 'Literal' || typeof literal.value !== 'string') return;
        const refusal = refusalOf(literal.value);
        if (refusal) context.report({ node, messageId: 'refused', data: { source: literal.value, message: refusal.message } });
      }

      return {
        ImportDeclaration: (node) => check(node, node.source),
        ExportNamedDeclaration: (node) => check(node, node.source),
        ExportAllDeclaration: (node) => check(node, node.source),
        ImportExpression: (node) => check(node, node.source),
        CallExpression: (/** @type {import('eslint').Rule.Node & import('estree').CallExpression} */ node) => {
          if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, /** @type {import('estree').Literal} */ (node.arguments[0]));
        },
        // typescript-eslint's nodes, not in ESTree's types
        TSExternalModuleReference: (/** @type {any} */ node) => check(node, node.expression),
        TSImportType: (/** @type {any} */ node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : (node.source ?? node.argument)),
      };
    },
  };
}
