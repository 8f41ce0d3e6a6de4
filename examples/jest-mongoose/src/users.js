const { User, Post } = require('./models');

async function register(email, name, age) {
  return User.create({ email, name, age });
}

async function publish(userId, title) {
  return Post.create({ author: userId, title });
}

/** Users with their number of posts and likes, most liked first. */
async function leaderboard() {
  return User.aggregate([
    { $lookup: { from: 'posts', localField: '_id', foreignField: 'author', as: 'posts' } },
    { $project: { name: 1, posts: { $size: '$posts' }, likes: { $sum: '$posts.likes' } } },
    { $sort: { likes: -1, name: 1 } },
  ]);
}

module.exports = { register, publish, leaderboard };
