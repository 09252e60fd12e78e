export { messageContract, channelId } from './document';
export { SchemaSet, type JsonSchema } from './json-schema';
export { MESSAGE_PARTIES, type Parties, type Party } from './parties';
