/**
 * The keys that appear more than once in one object of a JSON text, as dotted paths from the top
 * (`points`, `meta.note`). JSON.parse silently keeps the last of them, so `{"points":100,
 * "points":7500}` would be read as 7500 while a log or a proxy reads 100: a money request must not
 * be ambiguous. The text must already be valid JSON (JSON.parse accepted it). Values nested more
 * than maxDepth deep are not looked into.
 */
export function duplicateKeys(text: string, maxDepth = 32): string[] {
  const found: string[] = [];
  let index = 0;

  const skipSpace = () => {
    while (index < text.length && " \t\n\r".includes(text[index] ?? "")) index += 1;
  };
  const readString = (): string => {
    const start = index;
    index += 1; // the opening quote
    while (text[index] !== '"') index += text[index] === "\\" ? 2 : 1;
    index += 1;
    return JSON.parse(text.slice(start, index)) as string;
  };
  const readValue = (path: string, depth: number): void => {
    skipSpace();
    const char = text[index];
    if ((char === "{" || char === "[") && depth >= maxDepth) skipNested();
    else if (char === "{") readObject(path, depth + 1);
    else if (char === "[") readArray(path, depth + 1);
    else if (char === '"') readString();
    else while (index < text.length && !",}] \t\n\r".includes(text[index] ?? "")) index += 1;
  };
  // Below maxDepth no request field lives (every field is a scalar, refused by the schema if not),
  // so a deeper value is skipped without recursion rather than walked.
  const skipNested = (): void => {
    let open = 0;
    do {
      const char = text[index];
      if (char === '"') {
        readString();
        continue;
      }
      if (char === "{" || char === "[") open += 1;
      else if (char === "}" || char === "]") open -= 1;
      index += 1;
    } while (open > 0 && index < text.length);
  };
  const readArray = (path: string, depth: number): void => {
    index += 1;
    skipSpace();
    let item = 0;
    while (text[index] !== "]") {
      readValue(`${path}[${item}]`, depth);
      item += 1;
      skipSpace();
      if (text[index] === ",") index += 1;
      skipSpace();
    }
    index += 1;
  };
  const readObject = (path: string, depth: number): void => {
    index += 1;
    const seen = new Set<string>();
    skipSpace();
    while (text[index] !== "}") {
      skipSpace();
      const key = readString();
      const keyPath = path ? `${path}.${key}` : key;
      if (seen.has(key)) {
        if (!found.includes(keyPath)) found.push(keyPath);
      } else {
        seen.add(key);
      }
      skipSpace();
      index += 1; // the colon
      readValue(keyPath, depth);
      skipSpace();
      if (text[index] === ",") index += 1;
      skipSpace();
    }
    index += 1;
  };

  readValue("", 0);
  return found;
}
