// The JSDoc audit of a declaration file, by TypeScript's own parser (typescript-5, the
// compiler with a JavaScript API). Not a test file itself: jsdoc.test.mjs runs it.
//
// Every declaration of the file is audited, and every member of its classes and interfaces:
//   - a description and an `@example` with text, on each of them (exports, classes,
//     constructors, methods, properties, options, types);
//   - functions, constructors and methods: an `@param` for each parameter, and `@throws
//     {CryptoPayError}` unless listed in NEVER_THROWS; every backquoted code named in
//     `@throws` is a member of ErrorCode (so a misspelt code fails);
//   - no inline object type as a parameter (its options could not be documented one by one);
//   - each member of the `ErrorCode` union has a JSDoc comment of its own.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './readme.mjs';

const ts = createRequire(join(repoRoot, 'package.json'))('typescript-5');

/**
 * Callables that throw nothing: constructors that only store their arguments; memoryStore(),
 * which takes no argument; SandboxError's toJSON(), which returns what it holds.
 */
export const NEVER_THROWS = new Set(['CryptoPayError.constructor', 'CryptoPayApiError.constructor', 'SandboxError.constructor', 'memoryStore', 'SandboxError.toJSON']);

const text = (comment) => (ts.getTextOfJSDocComment(comment) ?? '').trim();

function docsOf(node) {
  const docs = ts.getJSDocCommentsAndTags(node).filter((d) => d.kind === ts.SyntaxKind.JSDoc);
  const last = docs.at(-1);
  const tags = last?.tags ?? [];
  return {
    present: last !== undefined,
    description: last ? text(last.comment) : '',
    tags: tags.map((t) => ({
      name: t.tagName.text,
      param: ts.isJSDocParameterTag(t) ? t.name.getText() : undefined,
      type: t.typeExpression ? t.typeExpression.getText() : undefined,
      text: text(t.comment),
    })),
  };
}

function errorCodeMembers(sourceFile) {
  const alias = sourceFile.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === 'ErrorCode');
  if (!alias || !ts.isUnionTypeNode(alias.type)) return null;
  const full = sourceFile.getFullText();
  let previousEnd = alias.type.pos;
  return alias.type.types.map((member) => {
    // The member's comment sits before its `|`: the last JSDoc between it and the previous member.
    const between = full.slice(previousEnd, member.getStart(sourceFile));
    previousEnd = member.end;
    const doc = [...between.matchAll(/\/\*\*[\s\S]*?\*\//g)].at(-1)?.[0] ?? '';
    const body = doc.replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*\*/gm, '').trim();
    return { code: member.getText(sourceFile).replace(/^['"]|['"]$/g, ''), doc: body };
  });
}

/** The members of a file's `ErrorCode` union and their JSDoc text: [{ code, doc }]. */
export function errorCodeDocs(source) {
  return errorCodeMembers(ts.createSourceFile('index.d.ts', source, ts.ScriptTarget.Latest, true)) ?? [];
}

/**
 * Audits one declaration file: { items: [{ name, problems: string[] }], codes } with one item
 * per declaration or member (and per ErrorCode member). `knownCodes`: the error codes a file
 * without its own ErrorCode union (the receiver's, which imports it) may name in `@throws`.
 */
export function auditDeclarations(source, fileName = 'index.d.ts', knownCodes = []) {
  const sourceFile = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const codes = errorCodeMembers(sourceFile);
  const known = new Set([...(codes ?? []).map((c) => c.code), ...knownCodes]);
  const items = [];

  const audit = (name, node, { callable = false, params = [] } = {}) => {
    const doc = docsOf(node);
    const problems = [];
    if (!doc.present) problems.push('no JSDoc');
    else if (doc.description === '') problems.push('no description');
    if (doc.present && !doc.tags.some((t) => t.name === 'example' && t.text !== '')) problems.push('no @example');
    if (callable) {
      const throws = doc.tags.filter((t) => t.name === 'throws');
      if (!NEVER_THROWS.has(name)) {
        if (throws.length === 0) problems.push('no @throws');
        for (const t of throws) {
          if (t.type !== '{CryptoPayError}') problems.push(`@throws ${t.type ?? 'without a type'}, not {CryptoPayError}`);
          if (t.text === '') problems.push('@throws says nothing');
        }
      }
      for (const t of throws) {
        for (const [, code] of t.text.matchAll(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`/g)) {
          if (!known.has(code)) problems.push(`@throws names \`${code}\`, which is not an ErrorCode`);
        }
      }
      for (const param of params) {
        const pname = param.name.getText(sourceFile);
        if (!doc.tags.some((t) => t.name === 'param' && t.param === pname && t.text !== '')) problems.push(`no @param ${pname}`);
        if (param.type && ts.isTypeLiteralNode(param.type)) {
          problems.push(`parameter ${pname} has an inline object type: name it (an interface whose options are documented)`);
        }
      }
    }
    items.push({ name, problems });
  };

  const members = (owner, node) => {
    for (const member of node.members) {
      if (ts.isConstructorDeclaration(member)) {
        audit(`${owner}.constructor`, member, { callable: true, params: member.parameters });
      } else if (ts.isMethodDeclaration(member)) {
        audit(`${owner}.${member.name.getText(sourceFile)}`, member, { callable: true, params: member.parameters });
      } else if (ts.isIndexSignatureDeclaration(member)) {
        audit(`${owner}[index]`, member);
      } else {
        // Properties, and method signatures of interfaces (shapes the package reads, not calls).
        audit(`${owner}.${member.name?.getText(sourceFile) ?? '?'}`, member);
      }
    }
  };

  for (const statement of sourceFile.statements) {
    if (ts.isFunctionDeclaration(statement)) {
      audit(statement.name.text, statement, { callable: true, params: statement.parameters });
    } else if (ts.isClassDeclaration(statement)) {
      audit(statement.name.text, statement);
      members(statement.name.text, statement);
    } else if (ts.isInterfaceDeclaration(statement)) {
      audit(statement.name.text, statement);
      members(statement.name.text, statement);
    } else if (ts.isTypeAliasDeclaration(statement)) {
      audit(statement.name.text, statement);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) audit(declaration.name.getText(sourceFile), statement);
    } else if (ts.isExportAssignment(statement) || ts.isExportDeclaration(statement) || ts.isImportDeclaration(statement)) {
      // `export default wasm`: the declaration it names is audited above; an import declares nothing.
    } else {
      items.push({ name: `statement at ${sourceFile.getLineAndCharacterOfPosition(statement.getStart()).line + 1}`, problems: ['not a kind of declaration this audit knows'] });
    }
  }
  for (const { code, doc } of codes ?? []) {
    items.push({ name: `ErrorCode '${code}'`, problems: doc === '' ? ['no JSDoc'] : [] });
  }
  return { items, codes: codes?.map((c) => c.code) ?? null };
}
