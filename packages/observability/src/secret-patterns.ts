/** A named kind of secret and the pattern that finds it. */
export interface SecretPattern {
  /** Shown in the mask, e.g. `[REDACTED:anthropic-key]`. */
  readonly name: string;
  /**
   * What to mask: the whole match, except a named group `keep` (a header or key name) that is
   * kept in front of the mask. The `g` flag is added when missing.
   */
  readonly pattern: RegExp;
}

/**
 * The built-in patterns, loose on purpose (over-redaction in a trace costs nothing), after the
 * shapes gitleaks documents. Header and assignment patterns keep their name (group `keep`);
 * none uses a lookbehind for its key, which would be tried at every position (10× slower);
 * an assignment (`password: "…"`, `DB_PASSWORD=…`, `"api_key": "…"`) is masked quoted or bare.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = Object.freeze([
  {
    name: 'private-key',
    pattern: /-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)/g,
  },
  { name: 'jwt', pattern: /\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g },
  { name: 'anthropic-key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g },
  {
    name: 'github-token',
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    name: 'aws-access-key',
    pattern: /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/g,
  },
  {
    name: 'aws-secret-key',
    pattern: /(?<keep>aws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
  },
  { name: 'bearer', pattern: /(?<keep>\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi },
  {
    name: 'auth-header',
    pattern:
      /(?<keep>\b(?:proxy-)?(?:authorization|x-api-key|api-key|x-auth-token)["']?\s*[:=]\s*["']?(?:(?:basic|bearer|token|digest)\s+)?)[^\s"',;{}[\]]{6,}/gi,
  },
  { name: 'url-credentials', pattern: /(?<keep>:\/\/[^\s/:@]*:)[^\s/@]+(?=@)/g },
  {
    name: 'query-secret',
    pattern:
      /(?<keep>[?&;](?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature|key)=)[^&\s#"'[\]]+/gi,
  },
  {
    name: 'secret-assignment',
    pattern:
      /(?<keep>(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token)["']?\s*[:=]\s*["'])[^"'[\]]{4,}(?=["'])/gi,
  },
  {
    name: 'secret-assignment',
    pattern:
      /(?<keep>(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token)["']?\s*[:=]\s*)[^\s"'&,;[\]{}]{4,}/gi,
  },
]);
