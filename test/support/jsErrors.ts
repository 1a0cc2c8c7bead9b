/**
 * What no message shown to a user may contain: JavaScript's own error messages (issue 28). Shared
 * by the hostile-input unit tests and the fuzz harnesses.
 */
export const JS_ERROR =
  /is not a function|Cannot read propert|Cannot set propert|is not iterable|Invalid array length|Invalid string length|Maximum call stack|is not defined|is not a constructor|undefined is not|null is not|RangeError|TypeError|SyntaxError|ReferenceError|in JSON at position|Unexpected token|Unexpected end of JSON|out of memory/i;
