import type { UploadStore } from "../domain/uploads.ts";
import { db, mainTableName } from "./client.ts";
import { nextAccountScopedId } from "./items.ts";
import { keys } from "./keys.ts";
import { PutCommand } from "@aws-sdk/lib-dynamodb";

export const uploadsRepo: UploadStore = {
  nextBlobId: (accountId) => nextAccountScopedId(accountId, "upload"),
  async insertUpload(record) {
    await db().send(
      new PutCommand({ TableName: mainTableName(), Item: { ...keys.upload(record.account_id, record.id), entity: "upload", ...record }, ConditionExpression: "attribute_not_exists(pk)" }),
    );
  },
};
