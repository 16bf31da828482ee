import type { ComponentChildren } from 'preact';
import { asText } from './format.js';

export function Loading() {
  return (
    <p class="loading" aria-busy="true">
      Loading…
    </p>
  );
}

export function ErrorBox({ message }: { message: string }) {
  return (
    <div class="error" role="alert" data-testid="error">
      {message}
    </div>
  );
}

export function Stat(props: { label: string; value: string; tone?: string }) {
  return (
    <div class={`stat ${props.tone ?? ''}`}>
      <span class="stat-value">{props.value}</span>
      <span class="stat-label">{props.label}</span>
    </div>
  );
}

/** A block of text (or any value as JSON), wrapped, never interpreted. */
export function TextBlock(props: { value: unknown; testid?: string; empty?: string }) {
  const text = asText(props.value);
  if (text === '') return <p class="muted">{props.empty ?? '(empty)'}</p>;
  return (
    <pre class="text" data-testid={props.testid}>
      {text}
    </pre>
  );
}

export function Section(props: { title: string; children: ComponentChildren; testid?: string }) {
  return (
    <section class="section" data-testid={props.testid}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}
