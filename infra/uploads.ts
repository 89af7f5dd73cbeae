/**
 * The uploads of `POST /api/v1/accounts/{account_id}/upload`: a private bucket (encrypted, TLS
 * only, no ACLs) whose server access logs go to a second bucket kept 90 days, and the grant of
 * its objects to the functions that upload. Both cdk-nag acknowledgements the uploads need sit
 * here, on the resources they cover.
 *
 * The buckets are made in the scope given (the stack), not under a child construct: their
 * logical ids stay the deployed ones, so a retained bucket is never orphaned and replaced.
 */
import { Duration, Stack } from "aws-cdk-lib";
import type { CfnElement, RemovalPolicy } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";
import { acknowledge, type NagAcknowledgement } from "./nag.ts";

/** Every upload's object key starts with this (shared/domain/uploads.ts: accounts/<id>/uploads/...). */
export const UPLOADS_PREFIX = "accounts/";

export const UPLOADS_NAG_ACKNOWLEDGEMENTS = {
  uploadObjects: {
    id: "AwsSolutions-IAM5",
    on: "the roles of the functions that write or sign uploads and message files, for the object ARN `<uploads bucket>/accounts/*` only",
    reason:
      "Each upload and each message file gets a new object key under accounts/<account>/ (shared/domain/uploads.ts, message attachments), so the functions that store them must put, and sign GETs for, keys that do not exist yet, and the message list and transcript sign GETs for them: the wildcard is limited to the accounts/ prefix, and the actions to s3:PutObject and s3:GetObject (s3:GetObject only for the readers).",
  },
  accessLogBucket: {
    id: "AwsSolutions-S1",
    on: "the uploads bucket's access-log bucket",
    reason:
      "It is the server-access-log target of the uploads bucket; logging the log bucket into itself (or another bucket) would only log the log writes.",
  },
} as const satisfies Record<string, NagAcknowledgement>;

export interface UploadsProps {
  /** RETAIN in production, DESTROY in development. */
  readonly removalPolicy: RemovalPolicy;
  /** Empty the buckets when they are destroyed (development). */
  readonly autoDeleteObjects: boolean;
}

export class Uploads {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, props: UploadsProps) {
    const { removalPolicy } = props;
    const disposable = props.autoDeleteObjects ? { autoDeleteObjects: true } : {};
    this.accessLogs = new Bucket(scope, "UploadsAccessLogs", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
      ...disposable,
    });
    this.bucket = new Bucket(scope, "UploadsBucket", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: "uploads/",
      removalPolicy,
      ...disposable,
    });
    acknowledge(this.accessLogs, UPLOADS_NAG_ACKNOWLEDGEMENTS.accessLogBucket);
  }

  /**
   * Lets the function put objects under accounts/, and get them (the signed file_url is signed
   * with its role), and gives it the bucket's name as UPLOADS_BUCKET.
   */
  grantObjects(fn: LambdaFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ["s3:PutObject", "s3:GetObject"], resources: [this.bucket.arnForObjects(`${UPLOADS_PREFIX}*`)] }));
    fn.addEnvironment("UPLOADS_BUCKET", this.bucket.bucketName);
    if (fn.role) acknowledge(fn.role, UPLOADS_NAG_ACKNOWLEDGEMENTS.uploadObjects, this.objectsFinding());
  }

  /** Lets the function sign GETs of the objects under accounts/ (message file URLs), nothing else. */
  grantRead(fn: LambdaFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ["s3:GetObject"], resources: [this.bucket.arnForObjects(`${UPLOADS_PREFIX}*`)] }));
    fn.addEnvironment("UPLOADS_BUCKET", this.bucket.bucketName);
    if (fn.role) acknowledge(fn.role, UPLOADS_NAG_ACKNOWLEDGEMENTS.uploadObjects, this.objectsFinding());
  }

  private objectsFinding(): string {
    return `Resource::<${Stack.of(this.bucket).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/${UPLOADS_PREFIX}*`;
  }
}
