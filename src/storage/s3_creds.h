/*
 * Temporary AWS credentials, from where the AWS SDKs find them when neither the environment nor the profile holds
 * keys, in their order:
 *   web identity   AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN (or the profile's web_identity_token_file and
 *                  role_arn; EKS IAM roles for service accounts): STS AssumeRoleWithWebIdentity, an unsigned request
 *                  to AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL or https://sts.<region>.amazonaws.com (.com.cn in
 *                  the China regions);
 *   assume role    the profile's role_arn with source_profile (a profile with keys) or credential_source
 *                  (Ec2InstanceMetadata, EcsContainer): STS AssumeRole, signed (service "sts") with
 *                  the source's credentials, to the same endpoint as web identity; external_id,
 *                  role_session_name and duration_seconds as the profile gives them;
 *   process        the profile's credential_process: a command whose output is a JSON document;
 *   container      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS: http://169.254.170.2<uri>) or
 *                  AWS_CONTAINER_CREDENTIALS_FULL_URI (EKS Pod Identity), with the Authorization header from
 *                  AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or AWS_CONTAINER_AUTHORIZATION_TOKEN;
 *   instance       the EC2 instance metadata service, IMDSv2 (a session token, then the role's credentials; IMDSv1
 *                  when the token is refused), at AWS_EC2_METADATA_SERVICE_ENDPOINT or http://169.254.169.254,
 *                  unless AWS_EC2_METADATA_DISABLED=true.
 * Such credentials expire: the S3 storage fetches them again from the same source shortly before (s3.c).
 *
 * The parsers are pure (tests feed them documents); fetching is libcurl and popen.
 */
#ifndef HOODIE_STORAGE_S3_CREDS_H
#define HOODIE_STORAGE_S3_CREDS_H

#include "hoodie/common.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** The domain of AWS's endpoints in a region: "amazonaws.com.cn" in the China regions (cn-...), else
 *  "amazonaws.com". */
static inline const char *hoodie_s3_aws_domain(const char *region)
{
    return region && !strncmp(region, "cn-", 3) ? "amazonaws.com.cn" : "amazonaws.com";
}

typedef struct hoodie_s3_creds {
    char *ak, *sk, *token;  /* malloc'd; token may be NULL */
    int64_t expires_ms;     /* ms since the epoch; 0: does not expire */
} hoodie_s3_creds;

/** Free the strings (zeroed first: they are secrets). */
void hoodie_s3_creds_dispose(hoodie_s3_creds *c);

/** The JSON of the container and instance endpoints and of credential_process: AccessKeyId, SecretAccessKey,
 *  Token or SessionToken, Expiration (ISO 8601; absent: never). `what` names the source in errors. */
hoodie_status hoodie_s3_creds_parse_json(const char *text, size_t len, const char *what, hoodie_s3_creds *out);
/** An AssumeRoleWithWebIdentityResponse or AssumeRoleResponse (its Credentials), or the ErrorResponse as the
 *  error. */
hoodie_status hoodie_s3_creds_parse_sts(const char *xml, size_t len, const char *what, hoodie_s3_creds *out);

/** Where temporary credentials come from (the settings of one of the sources above). */
typedef struct hoodie_s3_provider hoodie_s3_provider;

/** What the profile says about the sources (NULL: not set). */
typedef struct hoodie_s3_profile_sources {
    const char *role_arn, *web_identity_token_file, *role_session_name, *credential_process;
    const char *ca_bundle;  /* certificates to trust for https (AWS_CA_BUNDLE or the profile's ca_bundle) */
    /* AssumeRole: role_arn with the source profile's keys, or with a credential_source */
    const char *source_ak, *source_sk, *source_token;
    const char *credential_source, *external_id, *duration_seconds;
} hoodie_s3_profile_sources;

/**
 * The first source configured, for region (STS's endpoint). *out NULL when none is: no web identity, no process,
 * no container variable, and the instance metadata service disabled. The instance source is returned whenever it
 * is not disabled: whether there is one is known only by asking (hoodie_s3_provider_fetch).
 */
hoodie_status hoodie_s3_provider_from_env(hoodie_s3_provider **out, const char *region,
                                          const hoodie_s3_profile_sources *profile);
/** Fetch credentials from the source. Errors name it and say why. */
hoodie_status hoodie_s3_provider_fetch(hoodie_s3_provider *p, hoodie_s3_creds *out);
/** "web identity (role ARN)", "assume role ARN (...)", "credential_process", "container endpoint URL",
 *  "instance metadata (URL)". */
const char *hoodie_s3_provider_name(const hoodie_s3_provider *p);
/** 1 for the instance metadata source, which most machines do not have (then requests go unsigned). */
int hoodie_s3_provider_is_instance(const hoodie_s3_provider *p);
void hoodie_s3_provider_free(hoodie_s3_provider *p);

#endif
