// Sentence templates: role code names in braces, "{acquirer} acquired {target}".

const BRACES = /\{([^{}]*)\}/g;

/** The role code names a template names, or null when its braces are unbalanced. */
export function templateRoles(template: string): string[] | null {
  const names = [...template.matchAll(BRACES)].map((m) => m[1]!.trim());
  const rest = template.replace(BRACES, '');
  if (rest.includes('{') || rest.includes('}')) return null;
  return names;
}

/** Fills a template; null when any brace has no value (the sentence is not renderable). */
export function renderSentence(template: string, values: ReadonlyMap<string, string>): string | null {
  let complete = true;
  const text = template.replace(BRACES, (_match, name: string) => {
    const value = values.get(name.trim());
    if (value === undefined || value === '') complete = false;
    return value ?? '';
  });
  return complete ? text : null;
}
