// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README,
// type-checking the tests compiles it, and the test runs it (building providers sends nothing).
import { withRetry } from '@mh/providers';
import { anthropic } from '@mh/providers/anthropic';
import { openai } from '@mh/providers/openai';

const claude = withRetry(anthropic()); // ANTHROPIC_API_KEY; cache breakpoints on by default
const gpt = withRetry(openai({ api: 'responses' })); // OPENAI_API_KEY
const local = withRetry(openai({ baseURL: 'http://localhost:11434/v1' })); // Ollama, vLLM…: key optional
