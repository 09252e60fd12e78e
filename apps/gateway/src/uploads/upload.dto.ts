import { ApiProperty } from '@nestjs/swagger';

/** What POST /api/v1/uploads answers (UploadReply), for the OpenAPI document. */
export class UploadDto {
  @ApiProperty({ pattern: '^upl_[0-9a-f]{24}$', description: 'Give it (or `url`) to a media input of `POST /generate`.', example: 'upl_5f0c1a9e2b7d4c3a8e6f1b2d' })
  id!: string;

  @ApiProperty({
    format: 'uri',
    description: 'The file on the content host ({cdn_url}), readable without a key until it expires: what the provider is given.',
    example: 'https://api.example.com/cdn/4e/4e1d7c0b9a8f4e2d9c3b5a6f7e8d9c0b.png',
  })
  url!: string;

  @ApiProperty({ format: 'date-time', description: 'After this the upload cannot be used (422), and it is deleted.', example: '2026-11-27T16:20:00.000Z' })
  expires_at!: string;

  @ApiProperty({ description: 'Its media type, as its bytes show it.', example: 'image/png' })
  content_type!: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 482133 })
  bytes!: number;
}
