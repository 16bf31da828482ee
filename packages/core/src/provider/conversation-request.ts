import type { ChatMessage } from './chat-message.js';

/**
 * The turn of a conversation a request asks for (README, "Conversations"). The
 * request's `chatPrompt` holds the whole conversation so far, this turn's user
 * message last; an agent that keeps the conversation itself (a persistent one)
 * needs only `id` and `messages`.
 */
export interface ConversationRequest {
  /** The same for every turn of one conversation; a new one for each repeat of a case. */
  id: string;
  /** 1-based number of this user turn. */
  turn: number;
  /** This turn's new user message(s). */
  messages: ChatMessage[];
}
