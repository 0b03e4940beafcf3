#include "base/s3/S3CredentialChain.h"

#include "base/s3/AwsConfigFiles.h"
#include "base/s3/ImdsClient.h"
#include "base/util/Errors.h"

extern char** environ;

namespace streetgan::s3 {

S3CredentialChain::S3CredentialChain(Environment env) : env_(std::move(env)) {}
S3CredentialChain::~S3CredentialChain() = default;

std::shared_ptr<S3CredentialChain> S3CredentialChain::fromProcess() {
    Environment env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const size_t eq = entry.find('=');
        if (eq != std::string::npos && (entry.rfind("AWS_", 0) == 0 || entry.rfind("HOME=", 0) == 0)) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return std::make_shared<S3CredentialChain>(std::move(env));
}

std::string S3CredentialChain::env(const char* name) const {
    const auto it = env_.find(name);
    return it == env_.end() ? "" : it->second;
}

namespace {

std::string orDefault(const std::string& value, const std::string& fallback) { return value.empty() ? fallback : value; }

}  // namespace

S3Credentials S3CredentialChain::resolve() {
    const std::string key = env("AWS_ACCESS_KEY_ID"), secret = env("AWS_SECRET_ACCESS_KEY");
    if (!key.empty() || !secret.empty()) {
        // One without the other is a mistake to name, not a reason to fall through to a profile
        // the user did not mean.
        if (key.empty() || secret.empty())
            throw ConfigError(std::string(key.empty() ? "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not"
                                                      : "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not") +
                              ": set both, or unset both to use a profile or the instance role");
        return {key, secret, env("AWS_SESSION_TOKEN"), std::nullopt, "environment"};
    }
    const std::string home = env("HOME");
    const AwsConfigFiles files(orDefault(env("AWS_SHARED_CREDENTIALS_FILE"), home + "/.aws/credentials"),
                               orDefault(env("AWS_CONFIG_FILE"), home + "/.aws/config"));
    const std::string profileName = orDefault(env("AWS_PROFILE"), "default");
    const auto profile = files.profile(profileName);
    if (!env("AWS_PROFILE").empty() && !profile.found)
        throw ConfigError("AWS_PROFILE names the profile '" + profileName + "', which is in neither " + files.credentialsPath() + " nor " + files.configPath() +
                          ": check the name or add it (aws configure --profile " + profileName + ")");
    if (!profile.accessKeyId.empty()) {
        if (profile.secretAccessKey.empty())
            throw ConfigError("the profile '" + profileName + "' in " + profile.keysFrom + " has aws_access_key_id but no aws_secret_access_key: add it");
        return {profile.accessKeyId, profile.secretAccessKey, profile.sessionToken, std::nullopt, "profile '" + profileName + "' in " + profile.keysFrom};
    }
    if (const std::string endpoint = ImdsClient::endpointFor(env("AWS_EC2_METADATA_DISABLED"), env("AWS_EC2_METADATA_SERVICE_ENDPOINT")); !endpoint.empty()) {
        if (!imds_) imds_ = std::make_unique<ImdsClient>(endpoint);
        if (auto role = imds_->roleCredentials()) return *role;
    }
    throw ConfigError("no AWS credentials: not in the environment (AWS_ACCESS_KEY_ID), not in the profile '" + profileName + "' of " + files.credentialsPath() +
                      " or " + files.configPath() + ", no EC2 instance role: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE");
}

S3Credentials S3CredentialChain::credentials() {
    std::lock_guard lock(mutex_);
    if (current_.empty() || current_.expiresWithin(kRefreshMargin)) {
        // A refresh that fails while the credentials in hand are still valid (IMDS busy for a
        // moment) keeps them: the next use tries again, and only expired ones are an error.
        try {
            current_ = resolve();
        } catch (const Error&) {
            if (current_.empty() || current_.expiresWithin(std::chrono::seconds(0))) throw;
        }
    }
    return current_;
}

std::string S3CredentialChain::region() {
    std::lock_guard lock(mutex_);
    if (!regionKnown_) {
        std::string r = orDefault(env("AWS_REGION"), env("AWS_DEFAULT_REGION"));
        if (r.empty()) {
            const std::string home = env("HOME");
            const AwsConfigFiles files(orDefault(env("AWS_SHARED_CREDENTIALS_FILE"), home + "/.aws/credentials"),
                                       orDefault(env("AWS_CONFIG_FILE"), home + "/.aws/config"));
            r = files.profile(orDefault(env("AWS_PROFILE"), "default")).region;
        }
        // The instance's own region only when credentials came from its role: elsewhere IMDS is
        // not there and asking would cost its timeout.
        if (r.empty() && imds_ && current_.source.rfind("instance role", 0) == 0) r = imds_->region();
        region_ = orDefault(r, "us-east-1");
        regionKnown_ = true;
    }
    return region_;
}

}  // namespace streetgan::s3
