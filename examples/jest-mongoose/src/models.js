const mongoose = require('mongoose');

const userSchema = new mongoose.Schema(
  {
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    name: { type: String, required: true },
    age: { type: Number, min: 0 },
    tags: [String],
  },
  { timestamps: true },
);

userSchema.virtual('displayName').get(function displayName() {
  return `${this.name} <${this.email}>`;
});

const postSchema = new mongoose.Schema({
  author: { type: mongoose.Schema.Types.ObjectId, ref: 'User', required: true },
  title: { type: String, required: true },
  likes: { type: Number, default: 0 },
});

const User = mongoose.models.User || mongoose.model('User', userSchema);
const Post = mongoose.models.Post || mongoose.model('Post', postSchema);

module.exports = { User, Post };
